import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApplication, discoverClient } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
beforeAll(async () => {
  t = await startHttpTestHost();
});
afterAll(() => t.close());

describe('GET /.well-known/openid-configuration', () => {
  it('lists exactly what the provider supports', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const u = (p: string) => `${t.baseUrl}${p}`;
    expect(await res.json()).toEqual({
      issuer: t.baseUrl,
      authorization_endpoint: u('/oauth/authorize'),
      token_endpoint: u('/oauth/token'),
      userinfo_endpoint: u('/oauth/userinfo'),
      revocation_endpoint: u('/oauth/revoke'),
      introspection_endpoint: u('/oauth/introspect'),
      jwks_uri: u('/oauth/discovery/keys'),
      scopes_supported: [
        'api',
        'calendar',
        'check_ins',
        'giving',
        'groups',
        'home',
        'people',
        'publishing',
        'registrations',
        'services',
        'webhooks',
        'openid',
        'addons',
      ],
      response_types_supported: ['code'],
      response_modes_supported: ['form_post', 'fragment', 'query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['sub', 'name', 'email', 'organization_id', 'organization_name', 'auth_time', 'iss'],
      claims_parameter_supported: false,
      claim_types_supported: ['normal'],
      request_uri_parameter_supported: false,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('is what openid-client discovers [issuer matches]', async () => {
    const config = await discoverClient(t.baseUrl, await createTestApplication(t.db));
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(t.baseUrl);
    expect(metadata.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });
});

describe('GET /oauth/discovery/keys', () => {
  it('publishes one RS256 public key with a kid and no private members', async () => {
    const res = await fetch(`${t.baseUrl}/oauth/discovery/keys`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
  });

  it('keeps the signing key in the database, sealed', async () => {
    const { rows } = await t.db.query<{ kid: string; sealed_jwk: string }>(
      'SELECT kid, sealed_jwk FROM oauth_signing_keys',
    );
    const { keys } = (await (await fetch(`${t.baseUrl}/oauth/discovery/keys`)).json()) as { keys: { kid: string }[] };
    expect(rows.map((r) => r.kid)).toEqual([keys[0]!.kid]);
    expect(rows[0]!.sealed_jwk).toMatch(/^v1\.test1\./);
    expect(rows[0]!.sealed_jwk).not.toContain('"d"');
  });
});
