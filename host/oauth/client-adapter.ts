/**
 * oidc-provider's Client model read from the host's `oauth_applications`, through the client cache
 * (client-cache.ts) that every change of an application empties at once, so a deleted application or a
 * changed redirect URI applies at once. The client secret is unsealed only here, for oidc-provider's
 * constant-time comparison.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { hasNul } from '../db/storable-text.ts';
import { clientSecretAad, findOAuthApplicationByClientId, type OAuthApplicationRecord } from './applications.ts';
import type { ClientCache } from './client-cache.ts';
import { PROVIDER_SCOPES, SCOPES } from './scopes.ts';

/** RFC 7591 client metadata of an application. */
export function clientMetadata(app: OAuthApplicationRecord, box: SecretBox): AdapterPayload {
  // A custom-scheme redirect (a mobile app) makes it a native client, as does its recorded type (the CLI).
  const native = app.application_type === 'native' || app.redirect_uris.some((u) => !/^https?:/i.test(u));
  // The host's own scopes (`addons`) are for the platform's own clients only, never an organization's application.
  const platform = app.organization_id === null;
  return {
    client_id: app.client_id,
    client_name: app.name,
    scope: (platform ? PROVIDER_SCOPES : SCOPES).join(' '),
    ...(app.client_secret_encrypted && !app.public
      ? { client_secret: box.open(app.client_secret_encrypted, clientSecretAad(app.client_id)) }
      : {}),
    redirect_uris: app.redirect_uris,
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    application_type: native ? 'native' : 'web',
    token_endpoint_auth_method: app.public ? 'none' : 'client_secret_basic',
  };
}

/** The Client "adapter": read-only, from `oauth_applications`. */
export class ClientAdapter implements Adapter {
  constructor(
    private readonly db: Queryable,
    private readonly box: SecretBox,
    private readonly cache?: ClientCache,
  ) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    // No client_id holds a NUL character (and PostgreSQL text cannot): unknown, so invalid_client.
    if (hasNul(clientId)) return undefined;
    const load = async () => {
      const app = await findOAuthApplicationByClientId(this.db, clientId);
      return app && clientMetadata(app, this.box);
    };
    // A copy: oidc-provider must not change what the cache holds.
    const found = this.cache ? await this.cache.get(clientId, load) : await load();
    return found && structuredClone(found);
  }

  async upsert(): Promise<void> {
    throw new Error('OAuth applications are created through the developer account, not by the provider');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}
