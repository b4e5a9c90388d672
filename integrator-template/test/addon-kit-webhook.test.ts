import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../store/database.ts';
import { codeFlow, integratorClient } from './oauth-client.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  OTHER_USER,
  startTestIntegrator,
  USER,
  type TestIntegrator,
} from './support.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

const url = () => `${t.url}/webhooks/addon-kit`;

/** The user id of a seeded user, as the token response names it. */
async function userId(username: string): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>('SELECT id::text FROM users WHERE username = $1', [username]);
  return rows[0]!.id;
}

/** Token families of a user (what the receiver drops). */
async function families(username: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM token_families f JOIN users u ON u.id = f.user_id WHERE u.username = $1',
    [username],
  );
  return rows[0]!.n;
}

async function storedEvents(id: string): Promise<{ name: string }[]> {
  return (await t.db.query<{ name: string }>('SELECT name FROM addon_kit_events WHERE id = $1', [id])).rows;
}

/** A lifecycle delivery as the host sends it (body and both signatures), at the integrator clock's time. */
function delivery(
  name: string,
  user: string,
  options: { secret?: string; at?: number; id?: string; clientId?: string } = {},
) {
  const id = options.id ?? randomUUID();
  const secret = options.secret ?? CLIENT_SECRET;
  const timestamp = options.at ?? Math.floor(t.clock.now().getTime() / 1000);
  const payload = JSON.stringify({
    event: name,
    addon_id: '3',
    oauth_application_id: '17',
    installation_id: '5',
    environment: 'development',
    organization_id: '1',
    person_id: '42',
    integrator_user_id: user,
    integrator_client_id: options.clientId ?? CLIENT_ID,
    occurred_at: t.clock.now().toISOString(),
  });
  const body = JSON.stringify({
    data: [
      {
        id,
        type: 'EventDelivery',
        attributes: { name, attempt: 1, payload },
        relationships: { organization: { data: { type: 'Organization', id: '1' } } },
      },
    ],
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret, { format: 'raw' }).sign(id, new Date(timestamp * 1000), body),
    'x-pco-webhooks-authenticity': createHmac('sha256', secret).update(body).digest('hex'),
  };
  return { id, body, headers };
}

const send = (d: { body: string; headers: Record<string, string> }) =>
  fetch(url(), { method: 'POST', headers: d.headers, body: d.body });

describe('POST /webhooks/addon-kit', () => {
  it('verifies both signatures, stores the event once and drops the person’s tokens on revoked [revoked]', async () => {
    await codeFlow(integratorClient(t.url), USER);
    await codeFlow(integratorClient(t.url), USER);
    await codeFlow(integratorClient(t.url), OTHER_USER);
    expect(await families(USER.username)).toBe(2);
    const d = delivery('addon.authorization.revoked', await userId(USER.username));
    const res = await send(d);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: d.id, duplicate: false, dropped_grants: 2 });
    expect(await storedEvents(d.id)).toEqual([{ name: 'addon.authorization.revoked' }]);
    expect(await families(USER.username)).toBe(0);
    expect(await families(OTHER_USER.username)).toBe(1);

    // The host delivers at least once: the same delivery again changes nothing.
    await codeFlow(integratorClient(t.url), USER);
    const again = await send(d);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: d.id, duplicate: true, dropped_grants: 0 });
    expect(await storedEvents(d.id)).toHaveLength(1);
    expect(await families(USER.username)).toBe(1);
  });

  it('keeps the tokens on completed and drops them on excluded and reauthorization_required [names]', async () => {
    const bob = await userId(OTHER_USER.username);
    const before = await families(OTHER_USER.username);
    expect(before).toBeGreaterThan(0);
    const completed = await send(delivery('addon.authorization.completed', bob));
    expect(completed.status).toBe(200);
    expect(await families(OTHER_USER.username)).toBe(before);
    const excluded = await send(delivery('addon.authorization.excluded', bob));
    expect(await excluded.json()).toMatchObject({ dropped_grants: before });
    expect(await families(OTHER_USER.username)).toBe(0);
    await codeFlow(integratorClient(t.url), OTHER_USER);
    const reauth = await send(delivery('addon.authorization.reauthorization_required', bob));
    expect(await reauth.json()).toMatchObject({ dropped_grants: 1 });
    expect(await families(OTHER_USER.username)).toBe(0);
  });

  it('refuses a timestamp more than five minutes away, either way, and stores nothing [stale]', async () => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    for (const at of [now - 301, now + 301]) {
      const d = delivery('addon.authorization.revoked', '1', { at });
      const res = await send(d);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: 'stale_timestamp',
        error_description: 'webhook-timestamp is more than five minutes away from now',
      });
      expect(await storedEvents(d.id)).toEqual([]);
    }
    const edge = delivery('addon.authorization.completed', '1', { at: now - 299 });
    expect((await send(edge)).status).toBe(200);
  });

  it('refuses a wrong secret, a changed body, a forged authenticity header and missing headers [forged]', async () => {
    const user = await userId(USER.username);
    const wrong = delivery('addon.authorization.revoked', user, { secret: 'not-the-client-secret' });
    const wrongRes = await send(wrong);
    expect(wrongRes.status).toBe(401);
    expect(await wrongRes.json()).toEqual({
      error: 'invalid_signature',
      error_description: 'webhook-signature does not match the body',
    });

    const changed = delivery('addon.authorization.revoked', user);
    const tampered = await send({ ...changed, body: changed.body.replace('"attempt":1', '"attempt":2') });
    expect(tampered.status).toBe(401);

    const forged = delivery('addon.authorization.revoked', user);
    forged.headers['x-pco-webhooks-authenticity'] = createHmac('sha256', 'other').update(forged.body).digest('hex');
    const forgedRes = await send(forged);
    expect(forgedRes.status).toBe(401);
    expect(await forgedRes.json()).toEqual({
      error: 'invalid_signature',
      error_description: 'X-PCO-Webhooks-Authenticity does not match the body',
    });

    const bare = delivery('addon.authorization.revoked', user);
    delete bare.headers['webhook-signature'];
    const bareRes = await send(bare);
    expect(bareRes.status).toBe(400);
    expect(await bareRes.json()).toEqual({
      error: 'missing_signature',
      error_description: 'the webhook signature headers are missing',
    });
    for (const d of [wrong, changed, forged, bare]) expect(await storedEvents(d.id)).toEqual([]);
  });

  it('refuses a body whose event id is not the signed one, or naming another client [mismatch]', async () => {
    const user = await userId(USER.username);
    const moved = delivery('addon.authorization.revoked', user);
    // Signed as a whole with the right secret, but the EventDelivery inside names another event.
    const body = moved.body.replace(moved.id, randomUUID());
    const resigned = {
      body,
      headers: {
        ...moved.headers,
        'webhook-signature': new Webhook(CLIENT_SECRET, { format: 'raw' }).sign(
          moved.id,
          new Date(Number(moved.headers['webhook-timestamp']) * 1000),
          body,
        ),
        'x-pco-webhooks-authenticity': createHmac('sha256', CLIENT_SECRET).update(body).digest('hex'),
      },
    };
    const res = await send(resigned);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the body is not an EventDelivery',
    });
    expect(await storedEvents(moved.id)).toEqual([]);

    const foreign = delivery('addon.authorization.revoked', user, { clientId: 'another-client' });
    const foreignRes = await send(foreign);
    expect(foreignRes.status).toBe(400);
    expect(await foreignRes.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the event names another client',
    });
  });
});
