import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import { authorizeWith, basic, codeFlow, integratorClient, postToken } from './oauth-client.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  REDIRECT_URI,
  startTestIntegrator,
  type TestIntegrator,
} from './support.ts';

const OTHER_CLIENT = {
  client_id: 'other-host',
  client_secret: 'other-host-secret-987654321',
  redirect_uris: [REDIRECT_URI],
  name: 'Other',
};

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT_URI],
        name: 'Test Add-on',
        host_name: 'Test Platform',
      },
      OTHER_CLIENT,
    ],
  });
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

const digest = (s: string) => createHash('sha256').update(s).digest('hex');

async function apiStatus(token: string): Promise<number> {
  return (await fetch(`${t.url}/api/messages`, { headers: { authorization: `Bearer ${token}` } })).status;
}

async function errorOf(res: Response) {
  return {
    status: res.status,
    body: await res.json(),
    cacheControl: res.headers.get('cache-control'),
    challenge: res.headers.get('www-authenticate'),
  };
}

describe('POST /oauth/token (authorization_code)', () => {
  it('issues a Bearer pair with expires_in to openid-client [client_secret_basic]', async () => {
    const tokens = await codeFlow(integratorClient(t.url, 'basic'));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('messages');
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await apiStatus(tokens.access_token)).toBe(200);
  });

  it('issues a pair [client_secret_post]', async () => {
    const tokens = await codeFlow(integratorClient(t.url, 'post'));
    expect(await apiStatus(tokens.access_token)).toBe(200);
  });

  it('answers no-store and stores only SHA-256 digests of the tokens [storage]', async () => {
    const config = integratorClient(t.url);
    const { callback, verifier } = await authorizeWith(config);
    const res = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      basic(),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
      'user_id',
    ]);
    expect(body.token_type).toBe('Bearer');
    const access = await t.db.query('SELECT 1 FROM access_tokens WHERE token_hash = $1', [
      digest(body.access_token as string),
    ]);
    const refresh = await t.db.query('SELECT 1 FROM refresh_tokens WHERE token_hash = $1', [
      digest(body.refresh_token as string),
    ]);
    const plain = await t.db.query(
      'SELECT 1 FROM access_tokens WHERE token_hash IN ($1, $2) UNION ALL SELECT 1 FROM refresh_tokens WHERE token_hash IN ($1, $2)',
      [body.access_token, body.refresh_token],
    );
    expect([access.rows.length, refresh.rows.length, plain.rows.length]).toEqual([1, 1, 0]);
  });

  it('refuses a wrong PKCE verifier [PKCE]', async () => {
    const { callback } = await authorizeWith(integratorClient(t.url));
    const res = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: 'b'.repeat(43),
      },
      basic(),
    );
    expect(await errorOf(res)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'PKCE verification failed' },
      cacheControl: 'no-store',
      challenge: null,
    });
  });

  it('requires the code_verifier [no verifier]', async () => {
    const { callback } = await authorizeWith(integratorClient(t.url));
    const res = await postToken(
      t.url,
      { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI },
      basic(),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_request',
      error_description: 'code_verifier is required',
    });
  });

  it('refuses a redirect_uri other than the authorization request one [redirect_uri]', async () => {
    const { callback, verifier } = await authorizeWith(integratorClient(t.url));
    const res = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: `${REDIRECT_URI}/`,
        code_verifier: verifier,
      },
      basic(),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'redirect_uri does not match the authorization request',
    });
  });

  it('refuses a code a second time and revokes the tokens issued from it [single use]', async () => {
    const config = integratorClient(t.url);
    const { callback, verifier, state } = await authorizeWith(config);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(await apiStatus(tokens.access_token)).toBe(200);
    const again = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      basic(),
    );
    expect(await errorOf(again)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'the authorization code was already used' },
      cacheControl: 'no-store',
      challenge: null,
    });
    expect(await apiStatus(tokens.access_token)).toBe(401);
    const refresh = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      basic(),
    );
    expect((await errorOf(refresh)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was revoked',
    });
  });

  it('refuses a code after its lifetime [expired]', async () => {
    const { callback, verifier } = await authorizeWith(integratorClient(t.url));
    t.clock.advance(61);
    const res = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      basic(),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code expired',
    });
  });

  it('refuses a code issued to another client [client binding]', async () => {
    const { callback, verifier } = await authorizeWith(integratorClient(t.url));
    const res = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      basic(OTHER_CLIENT.client_id, OTHER_CLIENT.client_secret),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code was issued to another client',
    });
  });

  it('leaves the tokens alone when another client replays a used code [client binding before replay]', async () => {
    const config = integratorClient(t.url);
    const { callback, verifier, state } = await authorizeWith(config);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const replay = await postToken(
      t.url,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      },
      basic(OTHER_CLIENT.client_id, OTHER_CLIENT.client_secret),
    );
    expect((await errorOf(replay)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code was issued to another client',
    });
    expect(await apiStatus(tokens.access_token)).toBe(200);
  });

  it('refuses an unknown code [bad code]', async () => {
    const res = await postToken(
      t.url,
      { grant_type: 'authorization_code', code: 'nope', redirect_uri: REDIRECT_URI, code_verifier: 'c'.repeat(43) },
      basic(),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code is invalid',
    });
  });
});

describe('POST /oauth/token (client authentication)', () => {
  const bad = {
    grant_type: 'authorization_code',
    code: 'x',
    redirect_uri: REDIRECT_URI,
    code_verifier: 'c'.repeat(43),
  };

  it('answers 401 invalid_client with a Basic challenge [wrong secret, basic]', async () => {
    const res = await postToken(t.url, bad, basic(CLIENT_ID, 'wrong-secret'));
    expect(await errorOf(res)).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
      cacheControl: 'no-store',
      challenge: 'Basic realm="integrator", charset="UTF-8"',
    });
  });

  it('answers 401 invalid_client [wrong secret, post]', async () => {
    const res = await postToken(t.url, { ...bad, client_id: CLIENT_ID, client_secret: 'wrong-secret' });
    expect(await errorOf(res)).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
      cacheControl: 'no-store',
      challenge: null,
    });
  });

  it('answers 401 invalid_client [unknown client, basic]', async () => {
    const res = await postToken(t.url, bad, basic('stranger', CLIENT_SECRET));
    expect((await errorOf(res)).status).toBe(401);
  });

  it('answers 401 invalid_client [no authentication]', async () => {
    const res = await postToken(t.url, bad);
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed: send client_secret_basic or client_secret_post',
    });
  });

  it('refuses two authentication methods at once [basic + post]', async () => {
    const res = await postToken(t.url, { ...bad, client_secret: CLIENT_SECRET }, basic());
    expect(await errorOf(res)).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'use exactly one client authentication method' },
      cacheControl: 'no-store',
      challenge: null,
    });
  });

  it('openid-client surfaces invalid_client [wrong secret]', async () => {
    const config = integratorClient(t.url, 'basic', 'wrong-secret-xyz');
    const { callback, verifier, state } = await authorizeWith(config);
    const error = await client
      .authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const challenge = error as client.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause.map((c) => [c.scheme, c.parameters.realm])).toEqual([['basic', 'integrator']]);
    expect(await challenge.response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed',
    });
  });
});

describe('POST /oauth/token (request errors)', () => {
  it('answers unsupported_grant_type [password grant]', async () => {
    const res = await postToken(t.url, { grant_type: 'password', username: 'a', password: 'b' }, basic());
    expect(await errorOf(res)).toEqual({
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: 'grant_type password is not supported' },
      cacheControl: 'no-store',
      challenge: null,
    });
  });

  it('answers invalid_request [no grant_type]', async () => {
    const res = await postToken(t.url, {}, basic());
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_request',
      error_description: 'grant_type is required',
    });
  });

  it('answers invalid_request [JSON body]', async () => {
    const res = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...basic() },
      body: '{"grant_type":"refresh_token"}',
    });
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_request',
      error_description: 'the body must be application/x-www-form-urlencoded',
    });
  });

  it('answers invalid_request [repeated parameter]', async () => {
    const res = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic() },
      body: 'grant_type=refresh_token&refresh_token=a&refresh_token=b',
    });
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_request',
      error_description: 'refresh_token is repeated or malformed',
    });
  });
});

describe('POST /oauth/token (refresh_token)', () => {
  it('rotates: a new pair, the new tokens work, openid-client accepts it [rotation]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.expires_in).toBe(3600);
    expect(await apiStatus(second.access_token)).toBe(200);
    const third = await client.refreshTokenGrant(config, second.refresh_token!);
    expect(await apiStatus(third.access_token)).toBe(200);
  });

  it('returns the same new pair once more for the previous token inside the grace window [grace]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const rotated = await client.refreshTokenGrant(config, first.refresh_token!);
    t.clock.advance(29);
    const res = await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      access_token: rotated.access_token,
      refresh_token: rotated.refresh_token,
      token_type: 'Bearer',
      expires_in: 3600 - 29,
      scope: 'messages',
      user_id: rotated.user_id,
    });
    expect(rotated.user_id).toBe(first.user_id);
    expect(await apiStatus(rotated.access_token)).toBe(200);
  });

  it('gives two concurrent refreshes of one token the same pair [race]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const [a, b] = await Promise.all([
      postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic()),
      postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic()),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [pa, pb] = (await Promise.all([a.json(), b.json()])) as { access_token: string; refresh_token: string }[];
    expect(pa!.refresh_token).toBe(pb!.refresh_token);
    expect(pa!.access_token).toBe(pb!.access_token);
    expect(await apiStatus(pa!.access_token)).toBe(200);
  });

  it('revokes the family on a second replay inside the grace window [replayed twice]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const rotated = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(
      (await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic())).status,
    ).toBe(200);
    const res = await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic());
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was already used; the grant is revoked',
    });
    expect(await apiStatus(rotated.access_token)).toBe(401);
  });

  it('revokes the whole family when a rotated refresh token is reused after the window [reuse]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const rotated = await client.refreshTokenGrant(config, first.refresh_token!);
    t.clock.advance(31);
    const reuse = await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic());
    expect(await errorOf(reuse)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'the refresh token was already used; the grant is revoked' },
      cacheControl: 'no-store',
      challenge: null,
    });
    expect(await apiStatus(rotated.access_token)).toBe(401);
    expect(await apiStatus(first.access_token)).toBe(401);
    const next = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: rotated.refresh_token! },
      basic(),
    );
    expect((await errorOf(next)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was revoked',
    });
    const { rows } = await t.db.query<{ revoked: boolean }>(
      'SELECT f.revoked_at IS NOT NULL AS revoked FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id WHERE r.token_hash = $1',
      [digest(first.refresh_token!)],
    );
    expect(rows).toEqual([{ revoked: true }]);
  });

  it('revokes the family when the previous token comes back after its successor was used [reuse after rotation]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    const third = await client.refreshTokenGrant(config, second.refresh_token!);
    const res = await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic());
    expect((await errorOf(res)).body.error).toBe('invalid_grant');
    expect(await apiStatus(third.access_token)).toBe(401);
  });

  it('refuses a refresh token of another client without revoking it [client binding]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const res = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token! },
      basic(OTHER_CLIENT.client_id, OTHER_CLIENT.client_secret),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token is invalid',
    });
    expect(await apiStatus(first.access_token)).toBe(200);
  });

  it('refuses a wider scope and keeps the token usable [scope]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    const res = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token!, scope: 'messages admin' },
      basic(),
    );
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_scope',
      error_description: 'scope must be omitted or equal to the granted scope',
    });
    const ok = await client.refreshTokenGrant(config, first.refresh_token!, { scope: 'messages' });
    expect(await apiStatus(ok.access_token)).toBe(200);
  });

  it('refuses a refresh token past its lifetime [expired]', async () => {
    const config = integratorClient(t.url);
    const first = await codeFlow(config);
    t.clock.advance(90 * 24 * 3600 + 1);
    const res = await postToken(t.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token! }, basic());
    expect((await errorOf(res)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token expired',
    });
  });
});

describe('access token lifetime', () => {
  it('stops accepting an access token after expires_in seconds [expiry]', async () => {
    const tokens = await codeFlow(integratorClient(t.url));
    t.clock.advance(3599);
    expect(await apiStatus(tokens.access_token)).toBe(200);
    t.clock.advance(1);
    expect(await apiStatus(tokens.access_token)).toBe(401);
  });
});

describe('POST /oauth/token (configured lifetime)', () => {
  it('issues expires_in from accessTokenTtlSeconds and expires the token then [ttl 120]', async () => {
    const short = await startTestIntegrator(store.db, { accessTokenTtlSeconds: 120 });
    try {
      const tokens = await codeFlow(integratorClient(short.url));
      expect(tokens.expires_in).toBe(120);
      const call = () =>
        fetch(`${short.url}/api/messages`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      short.clock.advance(119);
      expect((await call()).status).toBe(200);
      short.clock.advance(1);
      expect((await call()).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});
