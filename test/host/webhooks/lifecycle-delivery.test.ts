/**
 * Add-on lifecycle events in the outbox (record-lifecycle-event.ts): a row without a subscription, recorded in the
 * caller's transaction, delivered by the same worker to its own URL, signed with its own secret in the raw format,
 * retried on the same schedule, refused on a private address unless allowed, and never deactivating anything.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { startWebhookWorker, type WebhookWorkerOptions } from '#host/webhooks/delivery-worker.ts';
import { recordLifecycleEvent } from '#host/webhooks/record-lifecycle-event.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';
import { testWorkerOptions } from './test-worker.ts';
import { startReceiver, type Answer, type WebhookReceiver } from './webhook-receiver.ts';

const box = createSecretBox([TEST_ENCRYPTION_KEY]);
const SECRET = 'an-integrator-client-secret';
const NAME = 'addon.authorization.revoked';
let db: Database;
let organizationId: string;
const running: { stop(): Promise<void> }[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  organizationId = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!
    .id;
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const r of receivers.splice(0)) await r.close();
  await db.query('DELETE FROM webhook_events');
});
afterAll(() => db.close());

async function receiver(answer?: (n: number) => Answer): Promise<WebhookReceiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

function worker(options: Partial<WebhookWorkerOptions> = {}) {
  const w = startWebhookWorker({ ...testWorkerOptions(db, box), ...options });
  running.push(w);
  return w;
}

const record = (url: string, payload: unknown = { event: NAME, person_id: '7' }) =>
  db.transaction((tx) => recordLifecycleEvent(tx, box, { organizationId, name: NAME, url, secret: SECRET, payload }));

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(sql, params)).rows;
}

describe('recordLifecycleEvent()', () => {
  it('records one pending row without subscription, its secret sealed, in the caller’s transaction [commit]', async () => {
    const uuid = await record('https://integrator.example/hooks');
    const [row] = await rows<Record<string, unknown>>(
      'SELECT uuid::text, subscription_id, name, payload, status, target_url, signing_secret FROM webhook_events',
    );
    expect(row).toMatchObject({
      uuid,
      subscription_id: null,
      name: NAME,
      payload: JSON.stringify({ event: NAME, person_id: '7' }),
      status: 'pending',
      target_url: 'https://integrator.example/hooks',
    });
    expect(row!.signing_secret).toMatch(/^v1\./);
    expect(String(row!.signing_secret)).not.toContain(SECRET);
  });

  it('records nothing when the transaction rolls back [rollback]', async () => {
    await expect(
      db.transaction(async (tx) => {
        await recordLifecycleEvent(tx, box, {
          organizationId,
          name: NAME,
          url: 'https://integrator.example/hooks',
          secret: SECRET,
          payload: {},
        });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await rows('SELECT 1 FROM webhook_events')).toEqual([]);
  });
});

describe('delivering a lifecycle event', () => {
  it('POSTs it signed with its secret (raw format) and retries it like any event [500, 200]', async () => {
    const r = await receiver((n) => (n === 0 ? 500 : 200));
    worker();
    const uuid = await record(r.url);
    await r.waitFor(2);
    const [first, second] = r.received as [(typeof r.received)[0], (typeof r.received)[0]];
    expect([first.delivery.id, second.delivery.id]).toEqual([uuid, uuid]);
    expect([first.delivery.attempt, second.delivery.attempt]).toEqual([1, 2]);
    expect(JSON.parse(second.delivery.payload)).toEqual({ event: NAME, person_id: '7' });
    expect(
      new Webhook(SECRET, { format: 'raw' }).verify(second.body, second.headers as Record<string, string>),
    ).toEqual(JSON.parse(second.body));
    expect(second.headers['x-pco-webhooks-authenticity']).toBe(
      createHmac('sha256', SECRET).update(second.body).digest('hex'),
    );
    await expect
      .poll(() =>
        rows(
          `SELECT e.status, e.attempts, array_agg(d.response_status ORDER BY d.attempt) AS statuses
           FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id GROUP BY e.id`,
        ),
      )
      .toEqual([{ status: 'delivered', attempts: 2, statuses: [500, 200] }]);
  });

  it('fails on 410 without deactivating anything, and sends nothing more [410]', async () => {
    const r = await receiver(() => 410);
    worker();
    await record(r.url);
    await r.waitFor(1);
    await expect
      .poll(() => rows('SELECT status, attempts FROM webhook_events'))
      .toEqual([{ status: 'failed', attempts: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.received).toHaveLength(1);
  });

  it('refuses a loopback target unless private addresses are allowed [SSRF]', async () => {
    const r = await receiver();
    worker({ allowNonPublic: false, retryScale: 1 });
    await record(r.url);
    await expect
      .poll(() =>
        rows(
          `SELECT e.status, d.error, d.response_status FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id`,
        ),
      )
      .toEqual([{ status: 'pending', error: 'refused_address', response_status: null }]);
    expect(r.received).toEqual([]);
  });
});
