/**
 * OAuth applications of an organization: created with a client_id and (for confidential clients) a
 * client secret that is shown once and stored AES-256-GCM encrypted (oidc-provider needs it back to
 * check client_secret_basic/post).
 *
 * The only module that issues SQL on `oauth_applications` (migration 003). Other modules' queries that
 * join applications use {@link APPLICATIONS_VIEW}: the public columns, never the sealed secret.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';

export interface NewOAuthApplication {
  organizationId: string;
  name: string;
  description?: string;
  url?: string;
  /** Exact redirect URIs; matched exactly at /oauth/authorize and /oauth/token. */
  redirectUris: readonly string[];
  /** A public client (browser, mobile) has no secret and must use PKCE. */
  public?: boolean;
  addOnScopes?: string;
  createdById?: string | null;
}

export interface CreatedOAuthApplication {
  /** The integer id of the spec (used in add-on URLs), as a string. */
  id: string;
  client_id: string;
  /** Shown once; absent for public clients. */
  client_secret?: string;
}

export interface OAuthApplicationRecord {
  id: string;
  /** The owning organization; null for the platform's own clients (the addon-kit CLI, migration 104). */
  organization_id: string | null;
  name: string;
  description: string;
  url: string;
  client_id: string;
  client_secret_encrypted: string | null;
  public: boolean;
  redirect_uris: string[];
  add_on_scopes: string;
  /** RFC 7591 `application_type`: `native` for the CLI (its loopback redirect matches on any port). */
  application_type: 'web' | 'native';
}

/** The client_id of the addon-kit CLI, the host's own public native client (migration 104). */
export const CLI_CLIENT_ID = 'addon-kit-cli';

/**
 * The applications' public columns as a derived table, for other modules' joins and listings (alias it:
 * `FROM ${APPLICATIONS_VIEW} a`). PostgreSQL flattens it into the outer query, so it costs nothing.
 */
export const APPLICATIONS_VIEW =
  '(SELECT id, organization_id, name, description, url, client_id, public, redirect_uris, add_on_scopes, created_at FROM oauth_applications)';

const RECORD_COLUMNS =
  'id::text, organization_id::text, name, description, url, client_id, client_secret_encrypted, public, redirect_uris, ' +
  'add_on_scopes, application_type';

/** Additional authenticated data binding a sealed client secret to its client_id. */
export function clientSecretAad(clientId: string): string {
  return `oauth_application:${clientId}`;
}

/** Told of every change this module writes, in this process (see {@link onApplicationsChanged}). */
const changeListeners = new Set<() => void>();

/**
 * Calls `listener` after each update or deletion this module writes, in the writing process, before the write's
 * caller goes on: the client cache drops what it holds at once here, without waiting for the database's change
 * announcement (migration 064), which reaches other processes, and changes written by other tools, moments later.
 * Returns the function that stops it.
 */
export function onApplicationsChanged(listener: () => void): () => void {
  changeListeners.add(listener);
  return () => changeListeners.delete(listener);
}

function changed(): void {
  for (const listener of changeListeners) listener();
}

/** Creates an application; returns its secret once. */
export async function createOAuthApplication(
  db: Queryable,
  box: SecretBox,
  app: NewOAuthApplication,
): Promise<CreatedOAuthApplication> {
  const clientId = randomBytes(24).toString('base64url');
  const secret = app.public ? undefined : randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO oauth_applications (organization_id, name, description, url, client_id, client_secret_encrypted, public, redirect_uris, add_on_scopes, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id::text`,
    [
      app.organizationId,
      app.name,
      app.description ?? '',
      app.url ?? '',
      clientId,
      secret ? box.seal(secret, clientSecretAad(clientId)) : null,
      app.public ?? false,
      [...app.redirectUris],
      app.addOnScopes ?? '',
      app.createdById ?? null,
    ],
  );
  return { id: rows[0]!.id, client_id: clientId, ...(secret ? { client_secret: secret } : {}) };
}

/** Loads an application by client_id. */
export async function findOAuthApplicationByClientId(
  db: Queryable,
  clientId: string,
): Promise<OAuthApplicationRecord | undefined> {
  const { rows } = await db.query<OAuthApplicationRecord>(
    `SELECT ${RECORD_COLUMNS} FROM oauth_applications WHERE client_id = $1`,
    [clientId],
  );
  return rows[0];
}

/** Loads an application by its integer id (any organization's). */
export async function findOAuthApplication(db: Queryable, id: string): Promise<OAuthApplicationRecord | undefined> {
  const { rows } = await db.query<OAuthApplicationRecord>(
    `SELECT ${RECORD_COLUMNS} FROM oauth_applications WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** The application of an organization (undefined for another organization's, or an unknown id). */
export async function findOrganizationApplication(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<OAuthApplicationRecord | undefined> {
  const { rows } = await db.query<OAuthApplicationRecord>(
    `SELECT ${RECORD_COLUMNS} FROM oauth_applications WHERE id = $1 AND organization_id = $2`,
    [id, organizationId],
  );
  return rows[0];
}

/** The organization's applications by name, the first one when several share it (the demo's own). */
export async function findOrganizationApplicationByName(
  db: Queryable,
  organizationId: string,
  name: string,
): Promise<OAuthApplicationRecord | undefined> {
  const { rows } = await db.query<OAuthApplicationRecord>(
    `SELECT ${RECORD_COLUMNS} FROM oauth_applications WHERE organization_id = $1 AND name = $2 ORDER BY id LIMIT 1`,
    [organizationId, name],
  );
  return rows[0];
}

/** The organization's applications, by name. */
export async function listOrganizationApplications(
  db: Queryable,
  organizationId: string,
): Promise<OAuthApplicationRecord[]> {
  return (
    await db.query<OAuthApplicationRecord>(
      `SELECT ${RECORD_COLUMNS} FROM oauth_applications WHERE organization_id = $1 ORDER BY name, id`,
      [organizationId],
    )
  ).rows;
}

/** What an organization's administrator may change (the client type and client_id are fixed). */
export interface OAuthApplicationChanges {
  name: string;
  description: string;
  url: string;
  redirectUris: readonly string[];
  addOnScopes: string;
}

/** Updates an application of the organization; false when it is not one of theirs. */
export async function updateOAuthApplication(
  db: Queryable,
  organizationId: string,
  id: string,
  changes: OAuthApplicationChanges,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE oauth_applications SET name = $3, description = $4, url = $5, redirect_uris = $6, add_on_scopes = $7, updated_at = now()
     WHERE id = $1 AND organization_id = $2`,
    [
      id,
      organizationId,
      changes.name,
      changes.description,
      changes.url,
      [...changes.redirectUris],
      changes.addOnScopes,
    ],
  );
  changed();
  return rowCount === 1;
}

/** Replaces the redirect URIs of an application (the demo's, when its integrator's port moved). */
export async function setRedirectUris(db: Queryable, id: string, redirectUris: readonly string[]): Promise<void> {
  await db.query('UPDATE oauth_applications SET redirect_uris = $2, updated_at = now() WHERE id = $1', [
    id,
    [...redirectUris],
  ]);
  changed();
}

/**
 * Adds a redirect URI to an application unless it has it already (exact string); true when it was added. The
 * add-on registry does so for the integrator an add-on developer points a development version at.
 */
export async function addRedirectUri(db: Queryable, id: string, redirectUri: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE oauth_applications SET redirect_uris = array_append(redirect_uris, $2::text), updated_at = now()
     WHERE id = $1 AND NOT ($2::text = ANY (redirect_uris))`,
    [id, redirectUri],
  );
  if (rowCount === 1) changed();
  return rowCount === 1;
}

/** A new client secret for a confidential application; returned once, stored sealed. */
export async function rotateClientSecret(
  db: Queryable,
  box: SecretBox,
  app: { id: string; client_id: string },
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await db.query('UPDATE oauth_applications SET client_secret_encrypted = $2, updated_at = now() WHERE id = $1', [
    app.id,
    box.seal(secret, clientSecretAad(app.client_id)),
  ]);
  changed();
  return secret;
}

/** Deletes an application of the organization; false when it is not one of theirs. */
export async function deleteOAuthApplication(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM oauth_applications WHERE id = $1 AND organization_id = $2', [
    id,
    organizationId,
  ]);
  changed();
  return rowCount === 1;
}

/** The client_id and the unsealed secret of a confidential application (undefined: unknown or public). */
export async function clientCredentials(
  db: Queryable,
  box: SecretBox,
  id: string,
): Promise<{ clientId: string; clientSecret: string } | undefined> {
  const app = await findOAuthApplication(db, id);
  if (!app?.client_secret_encrypted) return undefined;
  return {
    clientId: app.client_id,
    clientSecret: box.open(app.client_secret_encrypted, clientSecretAad(app.client_id)),
  };
}
