/**
 * docs/oauth.md (the guide at /docs/guides/oauth) against the running OAuth server: the endpoints, the response
 * type, the PKCE method, the client authentication methods and the claims it names are what discovery and the
 * provider's configuration say, so the guide cannot promise what the host does not do.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let guide: string;
beforeAll(async () => {
  t = await startHttpTestHost();
  guide = (await readFile(join(import.meta.dirname, '../../../docs/oauth.md'), 'utf8')).replace(/\s+/g, ' ');
});
afterAll(() => t?.close());

describe('docs/oauth.md', () => {
  it('names the endpoints, response type, PKCE method and client authentication discovery announces', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const discovery = (await res.json()) as Record<string, unknown>;
    const path = (key: string) => new URL(discovery[key] as string).pathname;
    expect(path('authorization_endpoint')).toBe('/oauth/authorize');
    expect(path('token_endpoint')).toBe('/oauth/token');
    expect(path('userinfo_endpoint')).toBe('/oauth/userinfo');
    expect(path('jwks_uri')).toBe('/oauth/discovery/keys');
    expect(path('revocation_endpoint')).toBe('/oauth/revoke');
    expect(path('introspection_endpoint')).toBe('/oauth/introspect');
    for (const p of ['/oauth/authorize', '/oauth/token', '/oauth/userinfo', '/oauth/discovery/keys'])
      expect(guide).toContain(`\`${p}\``);
    for (const p of ['POST /oauth/revoke', 'POST /oauth/introspect', 'POST /oauth/refresh'])
      expect(guide).toContain(`\`${p}`);
    expect(discovery.response_types_supported).toEqual(['code']);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    expect(guide).toContain(
      'the response type `code`, the code challenge method `S256` and the client authentication methods `client_secret_basic`, `client_secret_post` and `none`',
    );
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(guide).toContain('signed with RS256');
    const claims = discovery.claims_supported as string[];
    for (const claim of ['sub', 'name', 'email', 'organization_id', 'organization_name']) {
      expect(claims).toContain(claim);
      expect(guide).toContain(`\`${claim}\``);
    }
    const scopes = discovery.scopes_supported as string[];
    for (const scope of ['people', 'api', 'webhooks', 'openid']) {
      expect(scopes).toContain(scope);
      expect(guide).toContain(`\`${scope}\``);
    }
  });
});
