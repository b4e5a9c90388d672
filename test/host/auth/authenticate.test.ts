import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { hashSecret } from '#host/auth/secret-hash.ts';

let t: TestHost;
let admin: string;

const UNAUTHORIZED = {
  errors: [
    {
      status: '401',
      title: 'Unauthorized',
      detail: 'The authenticated user has no record in this application or the credentials are not valid',
    },
  ],
};
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

beforeAll(async () => {
  t = await createTestHost();
  admin = await basicAuthFor(t.db, 'admin@demo.test');
});
afterAll(() => t.close());

describe('personal access tokens (HTTP Basic)', () => {
  it('authenticates client_id:secret', async () => {
    const res = await t.api().get('/current/v2/me').set('Authorization', admin);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ first_name: 'Alex', last_name: 'Admin' });
  });

  it('stores only the SHA-256 digest of the secret', async () => {
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'member@demo.test'), 'digest check');
    const { rows } = await t.db.query<{ secret_hash: string }>(
      'SELECT secret_hash FROM personal_access_tokens WHERE client_id = $1',
      [token.client_id],
    );
    expect(rows[0]!.secret_hash).toBe(hashSecret(token.secret));
    expect(rows[0]!.secret_hash).not.toContain(token.secret);
  });

  it('answers 401 with the spec body for a wrong secret, an unknown client_id or a malformed header', async () => {
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'member@demo.test'), 'wrong secret');
    for (const header of [
      basic(token.client_id, `${token.secret}x`),
      basic('unknown', token.secret),
      'Basic !!!',
      'Basic',
      'Token abc',
      'Bearer ',
    ]) {
      const res = await t.api().get('/current/v2/me').set('Authorization', header);
      expect(res.status, header).toBe(401);
      expect(res.body, header).toEqual(UNAUTHORIZED);
    }
  });

  it('answers 401 for a disabled token', async () => {
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'member@demo.test'), 'disabled');
    await t.db.query('UPDATE personal_access_tokens SET disabled_at = now() WHERE client_id = $1', [token.client_id]);
    expect(
      (await t.api().get('/current/v2/me').set('Authorization', basic(token.client_id, token.secret))).status,
    ).toBe(401);
  });

  it('reads the person at request time: an inactive person is refused on the next request [request time]', async () => {
    const editorId = await personId(t.db, 'editor@demo.test');
    const auth = await basicAuthFor(t.db, 'editor@demo.test');
    expect((await t.api().get('/current/v2/me').set('Authorization', auth)).status).toBe(200);
    await t.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [editorId]);
    expect((await t.api().get('/current/v2/me').set('Authorization', auth)).body).toEqual(UNAUTHORIZED);
    await t.db.query("UPDATE people SET status = 'active' WHERE id = $1", [editorId]);
    expect((await t.api().get('/current/v2/me').set('Authorization', auth)).status).toBe(200);
  });

  it('answers 401 for a Bearer token no provider knows', async () => {
    const res = await t.api().get('/current/v2/me').set('Authorization', 'Bearer not-a-token');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('sends the WWW-Authenticate challenge of the scheme tried (RFC 6750 §3, RFC 7617 §2)', async () => {
    const challenge = async (authorization?: string) => {
      const req = t.api().get('/current/v2/me');
      const res = await (authorization ? req.set('Authorization', authorization) : req);
      expect(res.status).toBe(401);
      return res.headers['www-authenticate'];
    };
    expect(await challenge('Bearer not-a-token')).toBe('Bearer realm="addon-kit", error="invalid_token"');
    expect(await challenge(basic('unknown', 'secret'))).toBe('Basic realm="addon-kit"');
    expect(await challenge()).toBe('Bearer realm="addon-kit", Basic realm="addon-kit"');
  });
});

describe('User-Agent', () => {
  const FORBIDDEN = {
    errors: [
      {
        status: '403',
        title: 'Forbidden',
        detail: 'You do not have access to this resource',
        meta: { description: 'Every API request must carry a User-Agent header identifying the application' },
      },
    ],
  };

  it('answers 403 with meta.description when the User-Agent is missing or blank', async () => {
    const { default: supertest } = await import('supertest');
    for (const ua of [undefined, '', '   ']) {
      let req = supertest(t.host.app).get('/current/v2/me').set('Authorization', admin);
      // supertest sets no User-Agent of its own; set a blank one where the case asks for it.
      if (ua !== undefined) req = req.set('User-Agent', ua);
      const res = await req;
      expect(res.status, JSON.stringify(ua)).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });

  it('accepts any non-blank User-Agent', async () => {
    expect(TEST_USER_AGENT).not.toBe('');
    expect((await t.api().get('/current/v2/me').set('Authorization', admin)).status).toBe(200);
  });
});

describe('GET /health', () => {
  it('answers 200 JSON naming the database', async () => {
    const res = await t.api().get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: t.db.kind });
  });
});
