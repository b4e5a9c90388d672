/**
 * OAuth applications of an organization: created with a client_id and (for confidential clients) a
 * client secret that is shown once and stored AES-256-GCM encrypted (oidc-provider needs it back to
 * check client_secret_basic/post).
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
  organization_id: string;
  name: string;
  description: string;
  url: string;
  client_id: string;
  client_secret_encrypted: string | null;
  public: boolean;
  redirect_uris: string[];
  add_on_scopes: string;
}

/** Additional authenticated data binding a sealed client secret to its client_id. */
export function clientSecretAad(clientId: string): string {
  return `oauth_application:${clientId}`;
}

/** Creates an application; returns its secret once. */
export async function createOAuthApplication(db: Queryable, box: SecretBox, app: NewOAuthApplication): Promise<CreatedOAuthApplication> {
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
export async function findOAuthApplicationByClientId(db: Queryable, clientId: string): Promise<OAuthApplicationRecord | undefined> {
  const { rows } = await db.query<OAuthApplicationRecord>(
    `SELECT id::text, organization_id::text, name, description, url, client_id, client_secret_encrypted, public, redirect_uris, add_on_scopes
     FROM oauth_applications WHERE client_id = $1`,
    [clientId],
  );
  return rows[0];
}

/** The client_id and sealed secret of an application by its integer id (the host as a client of its own provider). */
export async function findClientCredentials(db: Queryable, id: string): Promise<{ client_id: string; client_secret_encrypted: string | null } | undefined> {
  const { rows } = await db.query<{ client_id: string; client_secret_encrypted: string | null }>(
    'SELECT client_id, client_secret_encrypted FROM oauth_applications WHERE id = $1',
    [id],
  );
  return rows[0];
}
