/**
 * The outbox of changes (host/webhooks/event-store/changes.ts, migration 260): a People write records one row per
 * change in its transaction, whatever the number of subscribers; the delivery worker fans it out into one event per
 * subscription active at that moment and deletes it, in one statement; two fan-outs never take the same change.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { createChangeFanOut, FAN_OUT_BATCH } from '#host/webhooks/change-fan-out.ts';
import { startWebhookWorker, type WebhookWorker } from '#host/webhooks/delivery-worker.ts';
import { fanOutChanges } from '#host/webhooks/event-store/index.ts';
import { recordEvent } from '#host/webhooks/record-event.ts';
import { createSubscription } from '#host/webhooks/subscription-store.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';
import { personId } from '../../support/host.ts';
import { testWorkerOptions } from './test-worker.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const box = createSecretBox([TEST_ENCRYPTION_KEY]);
const NAME = 'people.v2.events.note.created';
let db: Database;
let organizationId: string;
let otherOrganizationId: string;
let adminId: string;
let otherAdminId: string;
const stops: { stop(): Promise<void> }[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const org = async (slug: string) =>
    (await db.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [slug])).rows[0]!.id;
  organizationId = await org('demo');
  otherOrganizationId = await org('other');
  adminId = await personId(db, 'admin@demo.test');
  otherAdminId = await personId(db, 'admin@other.test');
});
beforeEach(async () => {
  await db.query('DELETE FROM webhook_changes');
  await db.query('DELETE FROM webhook_events');
});
afterEach(async () => {
  for (const s of stops.splice(0)) await s.stop();
  for (const r of receivers.splice(0)) await r.close();
  await db.query('DELETE FROM webhook_subscriptions');
});
afterAll(() => db.close());

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(sql, params)).rows;
}

async function subscribe(url: string, options: { name?: string; organization?: 'other'; active?: boolean } = {}) {
  const other = options.organization === 'other';
  const { row } = await createSubscription(db, box, {
    organizationId: other ? otherOrganizationId : organizationId,
    personId: other ? otherAdminId : adminId,
    applicationId: null,
    name: options.name ?? NAME,
    url,
    active: options.active ?? true,
  });
  return row.id;
}

function record(payload: unknown): Promise<boolean> {
  return db.transaction((tx) => recordEvent(tx, { organizationId, name: NAME, payload }));
}

describe('recordEvent()', () => {
  it('records one change however many subscribe, and no event until it is fanned out [one row]', async () => {
    for (let i = 0; i < 10; i++) await subscribe(`http://127.0.0.1:9/${i}`);
    expect(await record({ data: { id: '1' } })).toBe(true);
    expect(await rows('SELECT organization_id::text, name, payload FROM webhook_changes', [])).toEqual([
      { organization_id: organizationId, name: NAME, payload: '{"data":{"id":"1"}}' },
    ]);
    expect(await rows('SELECT id FROM webhook_events')).toEqual([]);
  });

  it('records nothing when no active subscription of the organization wants the name [nobody]', async () => {
    await subscribe('http://127.0.0.1:9/other-name', { name: 'people.v2.events.note.updated' });
    await subscribe('http://127.0.0.1:9/off', { active: false });
    await subscribe('http://127.0.0.1:9/other-org', { organization: 'other' });
    expect(await record({ data: { id: '1' } })).toBe(false);
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
  });

  it('records nothing when the transaction rolls back [rollback]', async () => {
    await subscribe('http://127.0.0.1:9/a');
    await expect(
      db.transaction(async (tx) => {
        expect(await recordEvent(tx, { organizationId, name: NAME, payload: { data: { id: '2' } } })).toBe(true);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
    expect(await fanOutChanges(db, FAN_OUT_BATCH)).toEqual({ changes: 0, events: 0 });
  });
});

describe('fanOutChanges()', () => {
  it('makes one pending event per active subscription of the organization to the name, at the change time [fan out]', async () => {
    const a = await subscribe('http://127.0.0.1:9/a');
    const b = await subscribe('http://127.0.0.1:9/b');
    await subscribe('http://127.0.0.1:9/other-name', { name: 'people.v2.events.note.updated' });
    await subscribe('http://127.0.0.1:9/off', { active: false });
    await subscribe('http://127.0.0.1:9/other-org', { organization: 'other' });
    await record({ data: { id: '1' } });
    const [change] = await rows<{ created_at: Date }>('SELECT created_at FROM webhook_changes');
    expect(await fanOutChanges(db, FAN_OUT_BATCH)).toEqual({ changes: 1, events: 2 });
    const events = await rows<Record<string, unknown>>(
      `SELECT subscription_id::text, organization_id::text, name, payload, status, attempts, created_at, next_attempt_at
       FROM webhook_events ORDER BY subscription_id`,
    );
    const expected = (subscription: string) => ({
      subscription_id: subscription,
      organization_id: organizationId,
      name: NAME,
      payload: '{"data":{"id":"1"}}',
      status: 'pending',
      attempts: 0,
      created_at: change!.created_at,
      next_attempt_at: change!.created_at,
    });
    expect(events).toEqual([expected(a), expected(b)]);
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
    expect(await fanOutChanges(db, FAN_OUT_BATCH)).toEqual({ changes: 0, events: 0 });
  });

  it('goes to the subscriptions active when it fans out, and drops a change nobody wants any more [at fan-out]', async () => {
    const leaving = await subscribe('http://127.0.0.1:9/leaving');
    await record({ n: 1 });
    await db.query('UPDATE webhook_subscriptions SET active = false WHERE id = $1', [leaving]);
    expect(await fanOutChanges(db, FAN_OUT_BATCH)).toEqual({ changes: 1, events: 0 });
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
    await db.query('UPDATE webhook_subscriptions SET active = true WHERE id = $1', [leaving]);
    await record({ n: 2 });
    const joining = await subscribe('http://127.0.0.1:9/joining');
    expect(await fanOutChanges(db, FAN_OUT_BATCH)).toEqual({ changes: 1, events: 2 });
    expect(await rows('SELECT subscription_id::text FROM webhook_events ORDER BY subscription_id')).toEqual([
      { subscription_id: leaving },
      { subscription_id: joining },
    ]);
  });

  it('takes each change once when fan-outs run at the same time, oldest first in batches [once]', async () => {
    const a = await subscribe('http://127.0.0.1:9/a');
    const b = await subscribe('http://127.0.0.1:9/b');
    for (let n = 0; n < 250; n++) await record({ n });
    // Five fan-outs at once, seven changes a statement (on PostgreSQL each on a connection of its own).
    const totals = await Promise.all(
      Array.from({ length: 5 }, async () => {
        let events = 0;
        for (;;) {
          const done = await fanOutChanges(db, 7);
          events += done.events;
          if (done.changes === 0) return events;
        }
      }),
    );
    expect(totals.reduce((x, y) => x + y)).toBe(500);
    const made = await rows<{ subscription_id: string; n: number; copies: number }>(
      `SELECT subscription_id::text, (payload::jsonb->>'n')::int AS n, count(*)::int AS copies
       FROM webhook_events GROUP BY 1, 2 ORDER BY 2, 1`,
    );
    expect(made).toEqual(
      Array.from({ length: 250 }, (_, n) => [
        { subscription_id: a, n, copies: 1 },
        { subscription_id: b, n, copies: 1 },
      ]).flat(),
    );
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
  });
});

describe('the delivery worker', () => {
  it('fans out a committed change when its NOTIFY arrives, and delivers it [notified]', async () => {
    const r = await startReceiver();
    receivers.push(r);
    await subscribe(r.url);
    const worker: WebhookWorker = startWebhookWorker({
      ...testWorkerOptions(db, box),
      // Far longer than the test: only the NOTIFY sent at the commit can wake it.
      pollIntervalMs: 600_000,
    });
    stops.push(worker);
    // The worker fans out once as it starts; let that pass before the change.
    await expect.poll(async () => (await rows('SELECT 1 FROM webhook_changes')).length).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await record({ data: { id: 'notified' } });
    await r.waitFor(1, 5000);
    expect(r.received.map((x) => x.delivery.payload)).toEqual(['{"data":{"id":"notified"}}']);
    await expect
      .poll(async () => rows('SELECT status, attempts FROM webhook_events'))
      .toEqual([{ status: 'delivered', attempts: 1 }]);
    expect(await rows('SELECT id FROM webhook_changes')).toEqual([]);
  });
});

describe('createChangeFanOut()', () => {
  it('fans out at the start, after a NOTIFY, on a poll when not listening or 10 s after the last, and again after a failure [when]', async () => {
    let statements = 0;
    let failing = false;
    // The worker's database, counting its fan-out statements (and failing them on demand).
    const counting = new Proxy(db, {
      get(target, key) {
        if (key === 'query')
          return (sql: string, params?: unknown[]) => {
            statements++;
            if (failing) return Promise.reject(new Error('the database is gone'));
            return target.query(sql, params);
          };
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const fanOut = createChangeFanOut(counting);
      const ran = async () => {
        const before = statements;
        await fanOut.run();
        return statements - before;
      };
      expect(await ran()).toBe(1); // at the start
      expect(await ran()).toBe(0); // an attempt's end: nothing new
      fanOut.changed();
      expect(await ran()).toBe(1);
      fanOut.polled(true); // listening, just after a fan-out
      expect(await ran()).toBe(0);
      fanOut.polled(false); // not listening: every poll looks
      expect(await ran()).toBe(1);
      vi.advanceTimersByTime(9_999);
      fanOut.polled(true);
      expect(await ran()).toBe(0);
      vi.advanceTimersByTime(1);
      fanOut.polled(true);
      expect(await ran()).toBe(1);
      failing = true;
      fanOut.changed();
      await expect(fanOut.run()).rejects.toThrow('the database is gone');
      failing = false;
      expect(await ran()).toBe(1); // the failed fan-out is tried again at the next pass
      // Many changes: FAN_OUT_BATCH a statement, until one takes fewer.
      await subscribe('http://127.0.0.1:9/a');
      for (let n = 0; n < FAN_OUT_BATCH + 1; n++) await record({ n });
      fanOut.changed();
      expect(await ran()).toBe(2);
      expect(await rows('SELECT count(*)::int AS n FROM webhook_events')).toEqual([{ n: FAN_OUT_BATCH + 1 }]);
    } finally {
      vi.useRealTimers();
    }
  });
});
