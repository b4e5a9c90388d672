/** The testing kit's sendTestWebhook against the template integrator's real receiver, and as the host signs. */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sendTestWebhook } from '@addon-kit/sdk/testing';
import { signDelivery } from '#host/webhooks/sign-delivery.ts';
import { codeFlow, integratorClient } from '#integrator/test/oauth-client.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  startTestIntegrator,
  TestClock,
  USER,
  type TestIntegrator,
} from '#integrator/test/support.ts';
import type { Database } from '#integrator/store/database.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let alice: string;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db, {}, { clock: new TestClock(Date.now()) });
  alice = (await t.db.query<{ id: string }>('SELECT id::text FROM users WHERE username = $1', [USER.username])).rows[0]!
    .id;
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

const receiver = () => `${t.url}/webhooks/addon-kit`;

async function aliceGrants(): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM token_families WHERE user_id::text = $1',
    [alice],
  );
  return rows[0]!.n;
}

function revoked() {
  return {
    event: 'addon.authorization.revoked',
    addon_id: '1',
    oauth_application_id: '17',
    installation_id: '1',
    environment: 'development',
    organization_id: '1',
    person_id: '5',
    integrator_user_id: alice,
    integrator_client_id: CLIENT_ID,
    occurred_at: new Date().toISOString(),
  };
}

describe('sendTestWebhook()', () => {
  it('sends a lifecycle event the template receiver verifies, stores once and acts on [template]', async () => {
    await codeFlow(integratorClient(t.url), USER);
    expect(await aliceGrants()).toBe(1);
    const sent = await sendTestWebhook({
      url: receiver(),
      secret: CLIENT_SECRET,
      name: 'addon.authorization.revoked',
      payload: revoked(),
    });
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.responseBody)).toEqual({ received: sent.id, duplicate: false, dropped_grants: 1 });
    expect(await aliceGrants()).toBe(0);
    const again = await sendTestWebhook({
      url: receiver(),
      secret: CLIENT_SECRET,
      name: 'addon.authorization.revoked',
      payload: revoked(),
      id: sent.id,
    });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.responseBody)).toEqual({ received: sent.id, duplicate: true, dropped_grants: 0 });
    const { rows } = await t.db.query('SELECT name FROM addon_kit_events WHERE id = $1', [sent.id]);
    expect(rows).toEqual([{ name: 'addon.authorization.revoked' }]);
  });

  it('is refused by the receiver when stale or signed with another secret [refusals]', async () => {
    const stale = await sendTestWebhook({
      url: receiver(),
      secret: CLIENT_SECRET,
      name: 'addon.authorization.revoked',
      payload: revoked(),
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect(stale.status).toBe(401);
    expect(JSON.parse(stale.responseBody).error).toBe('stale_timestamp');
    const wrong = await sendTestWebhook({
      url: receiver(),
      secret: 'another-secret',
      name: 'addon.authorization.revoked',
      payload: revoked(),
    });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.responseBody).error).toBe('invalid_signature');
  });

  it('signs exactly as the host: raw for a client secret, whsec for a subscription secret [signature]', async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const subscription = `whsec_${Buffer.from('a subscription secret of 24').toString('base64')}`;
      const raw = await sendTestWebhook({
        url,
        secret: CLIENT_SECRET,
        name: 'addon.authorization.completed',
        payload: '{}',
      });
      const whsec = await sendTestWebhook({
        url,
        secret: subscription,
        name: 'people.v2.events.note.created',
        payload: {},
      });
      expect(got).toHaveLength(2);
      const [first, second] = got as [(typeof got)[0], (typeof got)[0]];
      expect(first.body).toBe(raw.body);
      expect(JSON.parse(first.body)).toEqual({
        data: [
          {
            id: raw.id,
            type: 'EventDelivery',
            attributes: { name: 'addon.authorization.completed', attempt: 1, payload: '{}' },
            relationships: { organization: { data: { type: 'Organization', id: '1' } } },
          },
        ],
      });
      const h = (r: (typeof got)[0]) => r.headers as Record<string, string>;
      expect(new Webhook(CLIENT_SECRET, { format: 'raw' }).verify(first.body, h(first))).toEqual(
        JSON.parse(first.body),
      );
      expect(new Webhook(subscription).verify(second.body, h(second))).toEqual(JSON.parse(second.body));
      expect(h(first)['x-pco-webhooks-authenticity']).toBe(
        createHmac('sha256', CLIENT_SECRET).update(first.body).digest('hex'),
      );
      // The host's worker signs with the same function: the same input gives the same headers.
      const timestamp = Number(h(second)['webhook-timestamp']);
      expect(
        Object.fromEntries(signDelivery({ id: whsec.id, timestamp, body: whsec.body, secrets: [subscription] })),
      ).toEqual(
        Object.fromEntries(Object.entries(whsec.headers).filter(([k]) => !['Content-Type', 'User-Agent'].includes(k))),
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
