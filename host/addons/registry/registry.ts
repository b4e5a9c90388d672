/**
 * The add-on registry API used by `addon-kit addon push`, `promote` and `dev`, called by an organization
 * administrator of the OAuth application's organization (a personal access token, or the CLI signed in; see
 * registry-credentials.ts); `registry-applications.ts` adds the routes creating an add-on's OAuth application:
 *
 * - `PUT  /addons/v1/applications/{oauth_application_id}/environments/{environment}`
 *   body `{config, bundle}` — config is the add-on config with that environment only and its
 *   placeholders already filled; bundle is the built add-on JavaScript. Adds a version (201), or answers the live
 *   one (200) when bundle and settings are the same. `links.preview`: a page mounting it, when the host has one.
 * - `POST /addons/v1/applications/{oauth_application_id}/environments/{to}/promotions`
 *   body `{from, config}` — the live bundle, scopes and UI extensions of `from` become a new version
 *   of `to`, with `to`'s environment settings from `config` (201).
 * - `GET  /addons/v1/applications/{oauth_application_id}/environments/{environment}` — the live version.
 *
 * The integrator client_secret is sealed apart from the rest of the stored config.
 */
import { createHash } from 'node:crypto';
import { Router, type Request } from 'express';
import { authOf } from '../../auth/authenticate.ts';
import { isOrganizationAdministrator } from '../../auth/permissions.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import {
  ForbiddenError,
  InvalidResourcePayloadError,
  NotFoundError,
  ValidationError,
  type ValidationProblem,
} from '../../errors.ts';
import { AddonConfigError, ENVIRONMENTS, parseAddonConfig, type AddonConfig, type Environment } from '../config.ts';
import { findOAuthApplication } from '../../oauth/applications.ts';
import { integratorSecretAad } from './installations.ts';
import { findLiveVersion } from './live-version.ts';

/** Where a host shows add-ons (the demo's List page, in development): pages that mount an insertion point. */
export interface AddonPages {
  /** A page of the organization where an add-on of one of `extensions` is mounted, if the host has one. */
  previewUrl(extensions: string[], organizationId: string): Promise<string | undefined>;
}

/** What the registry routes need. */
export interface RegistryDeps {
  db: Database;
  box: SecretBox;
  maxBundleBytes: number;
  /** Pages mounting add-ons, named in a push's answer (`links.preview`). */
  pages?: AddonPages | undefined;
}

const ORDER: Record<Environment, number> = { development: 0, beta: 1, production: 2 };

/** A stored version as the registry reports it. */
export interface VersionRow {
  id: string;
  environment: Environment;
  version: number;
  bundle_sha256: string;
  promoted_from_id: string | null;
  created_at: Date;
}

function versionDocument(row: VersionRow, oauthApplicationId: string) {
  return {
    data: {
      type: 'AddonVersion',
      id: row.id,
      attributes: {
        oauth_application_id: Number(oauthApplicationId),
        environment: row.environment,
        version: row.version,
        bundle_sha256: row.bundle_sha256,
        promoted_from_id: row.promoted_from_id,
        created_at: row.created_at.toISOString(),
      },
    },
  };
}

function environmentParam(req: Request): Environment {
  const value = String(req.params.environment);
  if (!(ENVIRONMENTS as readonly string[]).includes(value)) throw new NotFoundError();
  return value as Environment;
}

/** The OAuth application, when the requester administers its organization (404 for another organization's). */
export async function administeredApplication(
  db: Queryable,
  req: Request,
): Promise<{ id: string; organization_id: string }> {
  const { person } = authOf(req);
  const id = String(req.params.oauthApplicationId);
  if (!/^[1-9][0-9]{0,17}$/.test(id)) throw new NotFoundError();
  const app = await findOAuthApplication(db, id);
  if (!app || app.organization_id !== person.organization_id) throw new NotFoundError();
  if (!isOrganizationAdministrator(person))
    throw new ForbiddenError('Only organization administrators can register add-ons');
  return { id: app.id, organization_id: app.organization_id };
}

/** Validates a pushed config for one environment, every problem as one Validation Error entry. */
function validConfig(raw: unknown, environment: Environment, oauthApplicationId: string): AddonConfig {
  let config: AddonConfig;
  try {
    // Placeholders were filled by the CLI; one left over is reported like a missing variable.
    config = parseAddonConfig(raw, { env: {}, only: environment });
  } catch (error) {
    if (!(error instanceof AddonConfigError)) throw error;
    const problems = error.problems.map<ValidationProblem>((p) => {
      const at = p.indexOf(': ');
      return { parameter: `config.${p.slice(0, at)}`, detail: p.slice(at + 2) };
    });
    throw new ValidationError('AddonConfig', problems as [ValidationProblem, ...ValidationProblem[]]);
  }
  if (String(config.oauth_application_id) !== oauthApplicationId) {
    throw new ValidationError('AddonConfig', [
      { parameter: 'config.oauth_application_id', detail: `must be ${oauthApplicationId}, the application in the URL` },
    ]);
  }
  return config;
}

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

function bodyObject(req: Request): Record<string, unknown> {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidResourcePayloadError('The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The registry routes (mounted under `/addons/v1` behind PAT authentication). */
export function registryRouter(deps: RegistryDeps): Router {
  const { db, box } = deps;
  const router = Router();

  router.put('/applications/:oauthApplicationId/environments/:environment', async (req, res) => {
    const environment = environmentParam(req);
    const app = await administeredApplication(db, req);
    const body = bodyObject(req);
    const config = validConfig(body.config, environment, app.id);
    if (typeof body.bundle !== 'string' || body.bundle.length === 0) {
      throw new ValidationError('AddonVersion', [
        { parameter: 'bundle', detail: 'must be the built add-on JavaScript as a non-empty string' },
      ]);
    }
    if (Buffer.byteLength(body.bundle, 'utf8') > deps.maxBundleBytes) {
      throw new ValidationError('AddonVersion', [
        { parameter: 'bundle', detail: `must be at most ${deps.maxBundleBytes} bytes` },
      ]);
    }
    // The same bundle and settings as the live version: nothing to add (PUT is idempotent).
    const live = await findLiveVersion(db, box, app.id, environment);
    const unchanged = live?.matches(config, body.bundle) === true;
    const row = unchanged
      ? live.row
      : await registerAddonVersion(db, box, {
          application: app,
          environment,
          config,
          bundle: body.bundle,
          personId: authOf(req).person.id,
        });
    const preview = await deps.pages?.previewUrl(Object.keys(config.ui_extensions), app.organization_id);
    const document = versionDocument(row, app.id);
    res.status(unchanged ? 200 : 201).json(preview ? { ...document, links: { preview } } : document);
  });

  router.post('/applications/:oauthApplicationId/environments/:environment/promotions', async (req, res) => {
    const to = environmentParam(req);
    const app = await administeredApplication(db, req);
    const body = bodyObject(req);
    const from = body.from;
    if (typeof from !== 'string' || !(ENVIRONMENTS as readonly string[]).includes(from)) {
      throw new ValidationError('AddonPromotion', [
        { parameter: 'from', detail: `must be one of ${ENVIRONMENTS.join(', ')}` },
      ]);
    }
    if (ORDER[from as Environment] >= ORDER[to]) {
      throw new ValidationError('AddonPromotion', [
        {
          parameter: 'from',
          detail: `${from} cannot be promoted to ${to}: promotions go development → beta → production`,
        },
      ]);
    }
    const config = validConfig(body.config, to, app.id);
    const row = await db.transaction(async (tx) => {
      const { rows } = await tx.query<{
        id: string;
        addon_id: string;
        bundle: string;
        scopes: string[];
        ui_extensions: AddonConfig['ui_extensions'];
      }>(
        `SELECT v.id::text, v.addon_id::text, v.bundle, v.scopes, v.ui_extensions FROM addon_versions v JOIN addons a ON a.id = v.addon_id
         WHERE a.oauth_application_id = $1 AND v.environment = $2 ORDER BY v.version DESC LIMIT 1`,
        [app.id, from],
      );
      const source = rows[0];
      if (!source)
        throw new ValidationError('AddonPromotion', [
          { parameter: 'from', detail: `no version has been pushed to ${from}` },
        ]);
      // The promoted version runs exactly what was tested: bundle, scopes and UI extensions of `from`.
      return insertVersion(tx, box, {
        addonId: source.addon_id,
        environment: to,
        config,
        bundle: source.bundle,
        promotedFromId: source.id,
        personId: authOf(req).person.id,
        scopes: source.scopes,
        uiExtensions: { ...config.ui_extensions, ...source.ui_extensions },
      });
    });
    res.status(201).json(versionDocument(row, app.id));
  });

  router.get('/applications/:oauthApplicationId/environments/:environment', async (req, res) => {
    const environment = environmentParam(req);
    const app = await administeredApplication(db, req);
    const { rows } = await db.query<VersionRow>(
      `SELECT v.id::text, v.environment, v.version, v.bundle_sha256, v.promoted_from_id::text, v.created_at FROM addon_versions v JOIN addons a ON a.id = v.addon_id
       WHERE a.oauth_application_id = $1 AND v.environment = $2 ORDER BY v.version DESC LIMIT 1`,
      [app.id, environment],
    );
    if (!rows[0]) throw new NotFoundError();
    res.json(versionDocument(rows[0], app.id));
  });

  return router;
}
