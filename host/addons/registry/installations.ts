/**
 * Installations: an add-on environment as one organization sees it. Visibility follows the live
 * version of each environment: development → the owning organization only; beta → the version's
 * organization_ids (and the owner); production → every organization. Rows are created on first
 * sight so an installation id is stable for (add-on, organization, environment).
 */
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import { APPLICATIONS_VIEW } from '../../oauth/applications.ts';
import { AddonError } from '../addon-error.ts';
import type { Environment } from '../config.ts';

/** A version's integrator_oauth without its secret. */
export interface IntegratorOAuthSettings {
  authorize_url: string;
  token_url: string;
  redirect_url: string;
  client_id: string;
  scopes: string[];
}

/** A version's integrator_api. */
export interface IntegratorApiSettings {
  base_url: string;
  allow: { method: string; path: string }[];
}

/** One UI extension of an insertion point. */
export interface UiExtension {
  title: string;
  icon_url: string;
  entry: string;
}

/** An installation with its add-on's live version in that environment. */
export interface Installation {
  id: string;
  addonId: string;
  organizationId: string;
  /** The add-on's owning organization. */
  ownerOrganizationId: string;
  environment: Environment;
  oauthApplicationId: string;
  versionId: string;
  version: number;
  scopes: string[];
  uiExtensions: Record<string, UiExtension>;
  integratorOAuth: IntegratorOAuthSettings;
  integratorApi: IntegratorApiSettings;
  /** Origins the add-on's UI may show images from and link to (validated origins, e.g. `https://cdn.example.com`). */
  uiOrigins: string[];
  /** Where the integrator receives add-on lifecycle events (host/addons/lifecycle); undefined: none are sent. */
  webhookUrl: string | undefined;
  bundleSha256: string;
}

const LIVE_VERSION = `
  SELECT DISTINCT ON (v.addon_id, v.environment) v.*
  FROM addon_versions v ORDER BY v.addon_id, v.environment, v.version DESC`;

/** The live version `v` of add-on `a` is visible to organization `org` (an SQL expression). */
const visibleTo = (org: string) => `(v.environment = 'production'
  OR a.organization_id = ${org}
  OR (v.environment = 'beta' AND ${org} = ANY (v.organization_ids)))`;

const VISIBLE = visibleTo('$1');

interface InstallationRow {
  id: string;
  addon_id: string;
  organization_id: string;
  owner_organization_id: string;
  environment: Environment;
  oauth_application_id: string;
  version_id: string;
  version: number;
  scopes: string[];
  ui_extensions: Record<string, UiExtension>;
  integrator_oauth: IntegratorOAuthSettings;
  integrator_api: IntegratorApiSettings;
  ui_origins: string[];
  webhook_url: string | null;
  bundle_sha256: string;
}

const SELECT = `
  SELECT i.id::text, i.addon_id::text, i.organization_id::text, a.organization_id::text AS owner_organization_id, i.environment,
         a.oauth_application_id::text, v.id::text AS version_id, v.version, v.scopes, v.ui_extensions, v.integrator_oauth,
         v.integrator_api, v.ui_origins, v.webhook_url, v.bundle_sha256
  FROM addon_installations i
  JOIN addons a ON a.id = i.addon_id
  JOIN LATERAL (
    -- The live version of this installation's add-on and environment: one backward step of the
    -- (addon_id, environment, version) unique index, instead of the latest version of every add-on.
    SELECT * FROM addon_versions v
    WHERE v.addon_id = i.addon_id AND v.environment = i.environment
    ORDER BY v.version DESC LIMIT 1
  ) v ON true`;

function toInstallation(r: InstallationRow): Installation {
  return {
    id: r.id,
    addonId: r.addon_id,
    organizationId: r.organization_id,
    ownerOrganizationId: r.owner_organization_id,
    environment: r.environment,
    oauthApplicationId: r.oauth_application_id,
    versionId: r.version_id,
    version: r.version,
    scopes: r.scopes,
    uiExtensions: r.ui_extensions,
    integratorOAuth: r.integrator_oauth,
    integratorApi: r.integrator_api,
    uiOrigins: r.ui_origins,
    webhookUrl: r.webhook_url ?? undefined,
    bundleSha256: r.bundle_sha256,
  };
}

/** The installation answer for an id that is unknown, malformed or another organization's (indistinguishable). */
export function installationNotFound(): AddonError {
  return new AddonError(404, 'policy', 'installation_not_found', 'No such add-on installation', false);
}

/** True for a well-formed installation id (anything else names no installation, and never reaches SQL). */
export function isInstallationId(value: string): boolean {
  return /^[1-9][0-9]{0,17}$/.test(value);
}

/** An installation as {@link installationJsonSql} reads it. */
export type InstallationJson = InstallationRow;

/**
 * For a statement that reads more than the installation (the proxy's, with the person and the authorization):
 * installation `id` of organization `org` while visible to it, as one JSON value — null otherwise. `org` and
 * `id` are SQL expressions (a column or a parameter holding a well-formed id).
 */
export function installationJsonSql(org: string, id: string): string {
  return `(SELECT to_json(x) FROM (${SELECT} WHERE i.id = ${id} AND i.organization_id = ${org} AND ${visibleTo(org)}) x)`;
}

/**
 * For a listing that names installations (a person's authorizations): installation `id` of organization `org`
 * while visible to it, as `{name, environment}` JSON (`name`: its add-on's OAuth application) — null otherwise.
 * `org` and `id` are SQL expressions.
 */
export function installationLabelSql(org: string, id: string): string {
  return `(SELECT json_build_object('name', o.name, 'environment', i.environment) FROM (${SELECT} WHERE i.id = ${id}
    AND i.organization_id = ${org} AND ${visibleTo(org)}) i JOIN ${APPLICATIONS_VIEW} o ON o.id = i.oauth_application_id::bigint)`;
}

/** SQL: the integer id of the OAuth application of installation `id` (an SQL expression), for combined reads. */
export function installationApplicationIdSql(id: string): string {
  return `(SELECT a.oauth_application_id FROM addon_installations i JOIN addons a ON a.id = i.addon_id WHERE i.id = ${id})`;
}

/** The installation of a value read by {@link installationJsonSql}. */
export function installationOfJson(json: InstallationJson): Installation {
  return toInstallation(json);
}

/**
 * An installation of the given organization, still visible to it; undefined otherwise (so another
 * organization's installation id is indistinguishable from an unknown one).
 */
export async function findInstallation(
  db: Queryable,
  installationId: string,
  organizationId: string,
): Promise<Installation | undefined> {
  if (!isInstallationId(installationId)) return undefined;
  const { rows } = await db.query<InstallationRow>(
    `${SELECT} WHERE i.id = $2 AND i.organization_id = $1 AND ${VISIBLE}`,
    [organizationId, installationId],
  );
  return rows[0] && toInstallation(rows[0]);
}

/** An installation by id without the visibility check (background work: the sweeper). */
export async function loadInstallation(db: Queryable, installationId: string): Promise<Installation | undefined> {
  const { rows } = await db.query<InstallationRow>(`${SELECT} WHERE i.id = $1`, [installationId]);
  return rows[0] && toInstallation(rows[0]);
}

/** Every add-on environment visible to an organization, creating installation rows on first sight. */
export async function listInstallations(db: Queryable, organizationId: string): Promise<Installation[]> {
  await db.query(
    `INSERT INTO addon_installations (addon_id, organization_id, environment)
     SELECT v.addon_id, $1, v.environment FROM (${LIVE_VERSION}) v JOIN addons a ON a.id = v.addon_id WHERE ${VISIBLE}
     ON CONFLICT (addon_id, organization_id, environment) DO NOTHING`,
    [organizationId],
  );
  const { rows } = await db.query<InstallationRow>(
    `${SELECT} WHERE i.organization_id = $1 AND ${VISIBLE} ORDER BY i.id`,
    [organizationId],
  );
  return rows.map(toInstallation);
}

/** Additional authenticated data binding a sealed integrator client secret to its version row. */
export function integratorSecretAad(versionId: string): string {
  return `addon_versions:${versionId}:integrator_client_secret`;
}

/** The integrator client secret of a version, opened. */
export async function integratorClientSecret(db: Queryable, box: SecretBox, versionId: string): Promise<string> {
  const { rows } = await db.query<{ sealed: string }>(
    'SELECT integrator_client_secret_encrypted AS sealed FROM addon_versions WHERE id = $1',
    [versionId],
  );
  if (!rows[0]) throw new Error(`no add-on version ${versionId}`);
  return box.open(rows[0].sealed, integratorSecretAad(versionId));
}

/** The add-on's bundle of the live version of an installation. */
export async function installationBundle(db: Queryable, versionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ bundle: string }>('SELECT bundle FROM addon_versions WHERE id = $1', [versionId]);
  return rows[0]?.bundle;
}

/** The bundle a content hash names (the sandbox origin serves add-on scripts by hash), or undefined. */
export async function bundleByHash(db: Queryable, bundleSha256: string): Promise<string | undefined> {
  const { rows } = await db.query<{ bundle: string }>(
    'SELECT bundle FROM addon_versions WHERE bundle_sha256 = $1 ORDER BY id LIMIT 1',
    [bundleSha256],
  );
  return rows[0]?.bundle;
}
