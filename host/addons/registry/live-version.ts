/**
 * The live version of an add-on's environment, and whether a config and bundle would register the same thing: a
 * push of what is already live adds no version (PUT is idempotent), so `addon dev` and `push` on an unchanged
 * add-on, and `start` finding its sample add-on as it was, leave the version number alone.
 */
import { createHash } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import type { AddonConfig, Environment } from '../config.ts';
import { integratorClientSecret } from './installations.ts';

/** A live version as the registry reports it. */
export interface LiveVersionRow {
  id: string;
  environment: Environment;
  version: number;
  bundle_sha256: string;
  promoted_from_id: string | null;
  created_at: Date;
}

/** The live version, with a check whether `config` and `bundle` would register the same thing. */
export interface LiveVersion {
  row: LiveVersionRow;
  matches(config: AddonConfig, bundle: string): boolean;
}

/** The SHA-256 of a bundle, as stored and served (its content address). */
export function bundleDigest(bundle: string): string {
  return createHash('sha256').update(bundle, 'utf8').digest('hex');
}

/** The live (highest) version of the application's add-on in `environment`; undefined when none was pushed. */
export async function findLiveVersion(
  db: Queryable,
  box: SecretBox,
  applicationId: string,
  environment: Environment,
): Promise<LiveVersion | undefined> {
  const { rows } = await db.query<
    LiveVersionRow & {
      scopes: string[];
      ui_extensions: unknown;
      integrator_oauth: unknown;
      integrator_api: unknown;
      organization_ids: string[];
      ui_origins: string[];
      webhook_url: string | null;
    }
  >(
    `SELECT v.id::text, v.environment, v.version, v.bundle_sha256, v.promoted_from_id::text, v.created_at, v.scopes,
       v.ui_extensions, v.integrator_oauth, v.integrator_api, v.organization_ids::text[], v.ui_origins,
       v.webhook_url
     FROM addon_versions v JOIN addons a ON a.id = v.addon_id
     WHERE a.oauth_application_id = $1 AND v.environment = $2 ORDER BY v.version DESC LIMIT 1`,
    [applicationId, environment],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { scopes, ui_extensions, integrator_oauth, integrator_api, organization_ids, ui_origins, webhook_url, ...row } =
    found;
  const secret = await integratorClientSecret(db, box, row.id);
  return {
    row,
    matches(config, bundle) {
      const settings = config.environments[environment];
      if (!settings) return false;
      const { client_secret: configSecret, ...oauth } = settings.integrator_oauth;
      const extensions = Object.fromEntries(
        settings.ui_extensions.filter((p) => p in config.ui_extensions).map((p) => [p, config.ui_extensions[p]]),
      );
      return (
        row.bundle_sha256 === bundleDigest(bundle) &&
        secret === configSecret &&
        sameJson(scopes, config.scopes) &&
        sameJson(ui_extensions, extensions) &&
        sameJson(integrator_oauth, oauth) &&
        sameJson(integrator_api, settings.integrator_api) &&
        sameJson(organization_ids.map(String), settings.organization_ids.map(String)) &&
        sameJson(ui_origins, settings.ui_origins) &&
        webhook_url === (settings.webhook_url ?? null)
      );
    },
  };
}

/** Deep equality of JSON values, ignoring object key order (jsonb does not keep it). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, v]) => [k, sorted(v)]),
    );
  return value;
}
