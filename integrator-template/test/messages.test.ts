import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import { authorizationCodeGrant } from 'openid-client';
import { authorizeWith, codeFlow, integratorClient } from './oauth-client.ts';
import { createIntegratorTestDatabase, OTHER_USER, startTestIntegrator, USER, type TestIntegrator } from './support.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let alice: string;
let bob: string;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db, { scopes: { messages: 'Send messages', profile: 'Read your profile' } });
  alice = (await codeFlow(integratorClient(t.url), USER)).access_token;
  bob = (await codeFlow(integratorClient(t.url), OTHER_USER)).access_token;
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

function post(body: unknown, token = alice, contentType = 'application/json'): Promise<Response> {
  return fetch(`${t.url}/api/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /api/messages', () => {
  it('records the message per person and answers 201 with it [valid]', async () => {
    expect(t.db.kind).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
    const res = await post({ list_id: '12', person_ids: ['7', 9, '7'], message: '  Choir practice moved to 7pm  ' });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: { id: string } };
    expect(body).toEqual({
      data: {
        id: body.data.id,
        list_id: '12',
        person_ids: ['7', '9'],
        message: 'Choir practice moved to 7pm',
        created_at: t.clock.now().toISOString(),
      },
    });
    expect(res.headers.get('location')).toBe(`/api/messages/${body.data.id}`);
    const { rows } = await t.db.query<{ person_id: string; body: string; username: string; client_id: string }>(
      `SELECT r.person_id, m.body, u.username, m.client_id FROM message_recipients r JOIN messages m ON m.id = r.message_id
         JOIN users u ON u.id = m.user_id WHERE m.id = $1 ORDER BY r.position`,
      [body.data.id],
    );
    expect(rows).toEqual([
      { person_id: '7', body: 'Choir practice moved to 7pm', username: 'alice', client_id: 'test-host' },
      { person_id: '9', body: 'Choir practice moved to 7pm', username: 'alice', client_id: 'test-host' },
    ]);
  });

  it('answers 422 naming every invalid field [validation]', async () => {
    const res = await post({ list_id: 'abc', person_ids: [], message: ' ', extra: true });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: 'validation_failed',
      error_description: 'the message is invalid',
      details: [
        { path: 'list_id', message: 'must be a host id (digits)' },
        { path: 'person_ids', message: 'must name at least one person' },
        { path: 'message', message: 'must not be empty' },
        { path: '', message: 'Unrecognized key: "extra"' },
      ],
    });
  });

  it('answers 422 for a body that is not an object [array]', async () => {
    const res = await post([1, 2]);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { details: unknown[] }).details).toEqual([
      { path: '', message: 'Invalid input: expected object, received array' },
    ]);
  });

  it('answers 400 invalid_json [malformed JSON]', async () => {
    const res = await post('{"list_id": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_json', error_description: 'the body is not valid JSON' });
  });

  it('answers 415 [form body]', async () => {
    const res = await post('list_id=1', alice, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
  });

  it('answers 401 with an invalid_token challenge [unknown token]', async () => {
    const res = await post({ list_id: '1', person_ids: ['1'], message: 'x' }, 'not-a-real-token');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="integrator", error="invalid_token", error_description="the access token is invalid or expired"',
    );
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'the access token is invalid or expired',
    });
  });

  it('answers 401 with a bare challenge [no token]', async () => {
    const res = await fetch(`${t.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="integrator"');
  });

  it('answers 400 invalid_request [malformed Authorization]', async () => {
    const res = await fetch(`${t.url}/api/messages`, { headers: { authorization: 'Bearer two words' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="integrator", error="invalid_request", error_description="malformed Authorization header"',
    );
  });

  it('answers 403 insufficient_scope [token without messages]', async () => {
    const config = integratorClient(t.url);
    const { callback, verifier, state } = await authorizeWith(config, { scope: 'profile' });
    const tokens = await authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    const res = await post({ list_id: '1', person_ids: ['1'], message: 'x' }, tokens.access_token);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="integrator", error="insufficient_scope", scope="messages"',
    );
  });
});

describe('GET /api/messages', () => {
  it("lists only the token's user's messages, newest first [two users]", async () => {
    await post({ list_id: '3', person_ids: ['1'], message: 'second' });
    await post({ list_id: '4', person_ids: ['2'], message: 'from bob' }, bob);
    const res = await fetch(`${t.url}/api/messages`, { headers: { authorization: `Bearer ${bob}` } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { id: string }[] };
    expect(data).toEqual([
      {
        id: data[0]!.id,
        list_id: '4',
        person_ids: ['2'],
        message: 'from bob',
        created_at: t.clock.now().toISOString(),
      },
    ]);
    const mine = (await (
      await fetch(`${t.url}/api/messages`, { headers: { authorization: `Bearer ${alice}` } })
    ).json()) as { data: { message: string }[] };
    expect(mine.data.map((m) => m.message)).toEqual(['second', 'Choir practice moved to 7pm']);
  });
});
