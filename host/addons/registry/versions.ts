/**
 * An add-on's versions per environment: the next version numbered under a row lock on the add-on, its
 * integrator client_secret sealed apart from the rest of its config; the add-on row made on first push.
 */
import { createHash } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { ValidationError } from '../../errors.ts';
import type { AddonConfig, Environment } from '../config.ts';
import { integratorSecretAad } from './installations.ts';

/** A stored version as the registry reports it. */
export interface VersionRow {
  id: string;
  environment: Environment;
  version: number;
  bundle_sha256: string;
  promoted_from_id: string | null;
  created_at: Date;
}

/** Inserts the next version of an environment, its integrator client_secret sealed to the new row. */
async function insertVersion(
  tx: Queryable,
  box: SecretBox,
  v: {
    addonId: string;
    environment: Environment;
    config: AddonConfig;
    bundle: string;
    promotedFromId: string | null;
    personId: string;
    scopes: string[];
    uiExtensions: AddonConfig['ui_extensions'];
  },
): Promise<VersionRow> {
  const env = v.config.environments[v.environment]!;
  const { client_secret: secret, ...oauth } = env.integrator_oauth;
  const extensions = Object.fromEntries(
    env.ui_extensions.filter((p) => p in v.uiExtensions).map((p) => [p, v.uiExtensions[p]]),
  );
  // Versions of one environment are numbered under a row lock on the add-on.
  await tx.query('SELECT id FROM addons WHERE id = $1 FOR UPDATE', [v.addonId]);
  const { rows } = await tx.query<VersionRow>(
    `INSERT INTO addon_versions (addon_id, environment, version, scopes, ui_extensions, integrator_oauth, integrator_client_secret_encrypted,
       integrator_api, organization_ids, bundle, bundle_sha256, promoted_from_id, created_by_id, ui_origins, webhook_url)
     SELECT $1::bigint, $2::text, COALESCE(MAX(version), 0) + 1, $3::text[], $4::jsonb, $5::jsonb, 'pending', $6::jsonb, $7::bigint[], $8::text, $9::text,
       $10::bigint, $11::bigint, $12::text[], $13::text
     FROM addon_versions WHERE addon_id = $1::bigint AND environment = $2::text
     RETURNING id::text, environment, version, bundle_sha256, promoted_from_id::text, created_at`,
    [
      v.addonId,
      v.environment,
      v.scopes,
      JSON.stringify(extensions),
      JSON.stringify(oauth),
      JSON.stringify(env.integrator_api),
      env.organization_ids,
      v.bundle,
      createHash('sha256').update(v.bundle, 'utf8').digest('hex'),
      v.promotedFromId,
      v.personId,
      env.ui_origins,
      env.webhook_url ?? null,
    ],
  );
  const row = rows[0]!;
  // Sealed once the row id exists, so the ciphertext is bound to it.
  await tx.query('UPDATE addon_versions SET integrator_client_secret_encrypted = $2 WHERE id = $1', [
    row.id,
    box.seal(secret, integratorSecretAad(row.id)),
  ]);
  return row;
}

/** The add-on of an OAuth application, created on first use. */
async function ensureAddon(tx: Queryable, app: { id: string; organization_id: string }): Promise<string> {
  await tx.query(
    'INSERT INTO addons (oauth_application_id, organization_id) VALUES ($1, $2) ON CONFLICT (oauth_application_id) DO NOTHING',
    [app.id, app.organization_id],
  );
  const { rows } = await tx.query<{ id: string }>('SELECT id::text FROM addons WHERE oauth_application_id = $1', [
    app.id,
  ]);
  return rows[0]!.id;
}

/** What `registerAddonVersion` adds: one environment's config (placeholders filled, validated) and the built bundle. */
export interface NewAddonVersion {
  application: { id: string; organization_id: string };
  environment: Environment;
  config: AddonConfig;
  bundle: string;
  /** Who registers it (created_by_id). */
  personId: string;
}

/**
 * Adds a version of an environment (the live one from now on), creating the add-on on first use — what
 * `PUT …/environments/{env}` does after its checks; in-process callers (the demo set-up) use it directly.
 */
export async function registerAddonVersion(db: Database, box: SecretBox, v: NewAddonVersion): Promise<VersionRow> {
  return db.transaction(async (tx) => {
    const addonId = await ensureAddon(tx, v.application);
    return insertVersion(tx, box, {
      addonId,
      environment: v.environment,
      config: v.config,
      bundle: v.bundle,
      promotedFromId: null,
      personId: v.personId,
      scopes: v.config.scopes,
      uiExtensions: v.config.ui_extensions,
    });
  });
}

/** What a promotion adds: `from`'s latest bundle, scopes and UI extensions as `to`'s next version, with `to`'s settings. */
export interface Promotion {
  applicationId: string;
  from: Environment;
  to: Environment;
  /** The add-on config with `to`'s settings (validated). */
  config: AddonConfig;
  personId: string;
}

/** Promotes the latest version of `from`; a 422 when `from` has none. */
export async function promoteLatestVersion(db: Database, box: SecretBox, p: Promotion): Promise<VersionRow> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{
      id: string;
      addon_id: string;
      bundle: string;
      scopes: string[];
      ui_extensions: AddonConfig['ui_extensions'];
    }>(
      `SELECT v.id::text, v.addon_id::text, v.bundle, v.scopes, v.ui_extensions FROM addon_versions v JOIN addons a ON a.id = v.addon_id
       WHERE a.oauth_application_id = $1 AND v.environment = $2 ORDER BY v.version DESC LIMIT 1`,
      [p.applicationId, p.from],
    );
    const source = rows[0];
    if (!source)
      throw new ValidationError('AddonPromotion', [
        { parameter: 'from', detail: `no version has been pushed to ${p.from}` },
      ]);
    // The promoted version runs exactly what was tested: bundle, scopes and UI extensions of `from`.
    return insertVersion(tx, box, {
      addonId: source.addon_id,
      environment: p.to,
      config: p.config,
      bundle: source.bundle,
      promotedFromId: source.id,
      personId: p.personId,
      scopes: source.scopes,
      uiExtensions: { ...p.config.ui_extensions, ...source.ui_extensions },
    });
  });
}

/** The latest version of an application's environment, or undefined. */
export async function latestVersion(
  db: Queryable,
  applicationId: string,
  environment: Environment,
): Promise<VersionRow | undefined> {
  const { rows } = await db.query<VersionRow>(
    `SELECT v.id::text, v.environment, v.version, v.bundle_sha256, v.promoted_from_id::text, v.created_at FROM addon_versions v JOIN addons a ON a.id = v.addon_id
     WHERE a.oauth_application_id = $1 AND v.environment = $2 ORDER BY v.version DESC LIMIT 1`,
    [applicationId, environment],
  );
  return rows[0];
}
