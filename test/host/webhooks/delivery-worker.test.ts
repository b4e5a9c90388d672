import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database, Queryable } from '#host/db/database.ts';
import { FAN_OUT_BATCH } from '#host/webhooks/change-fan-out.ts';
import { startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from '#host/webhooks/delivery-worker.ts';
import { createAttemptFinisher } from '#host/webhooks/attempt-finisher.ts';
import {
  claimDueEvents,
  deleteFinishedEvents,
  fanOutChanges,
  listDeliveries,
  msUntilNextDue,
  type AttemptRecord,
} from '#host/webhooks/event-store/index.ts';
import { recordEvent } from '#host/webhooks/record-event.ts';
import { createSubscription, rotateSubscriptionSecret } from '#host/webhooks/subscription-store.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';
import { personId } from '../../support/host.ts';
import { testWorkerOptions } from './test-worker.ts';
import { startReceiver, type Answer, type WebhookReceiver } from './webhook-receiver.ts';

const box = createSecretBox([TEST_ENCRYPTION_KEY]);
const NAME = 'people.v2.events.note.created';
let db: Database;
let organizationId: string;
let adminId: string;
const running: { stop(): Promise<void> }[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  organizationId = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!
    .id;
  adminId = await personId(db, 'admin@demo.test');
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const r of receivers.splice(0)) await r.close();
  await db.query('DELETE FROM webhook_subscriptions');
});
afterAll(() => db.close());

async function receiver(answer?: (n: number) => Answer, delayMs?: number): Promise<WebhookReceiver> {
  const r = await startReceiver(answer, delayMs);
  receivers.push(r);
  return r;
}

async function subscribe(url: string, name: string = NAME) {
  return createSubscription(db, box, {
    organizationId,
    personId: adminId,
    applicationId: null,
    name,
    url,
    active: true,
  });
}

function worker(options: Partial<WebhookWorkerOptions> = {}): WebhookWorker {
  const w = startWebhookWorker({ ...testWorkerOptions(db, box), ...options });
  running.push(w);
  return w;
}

/** Records a change in a transaction of its own and fans it out at once (as the worker does at its NOTIFY); returns
 * how many events it made. */
async function record(payload: unknown, name: typeof NAME = NAME): Promise<number> {
  await db.transaction((tx) => recordEvent(tx, { organizationId, name, payload }));
  return (await fanOutChanges(db, FAN_OUT_BATCH)).events;
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(sql, params)).rows;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createAttemptFinisher()', () => {
  it('records the attempts that end in one turn with one statement, each told whether it was recorded [batch]', async () => {
    const { row } = await subscribe('http://127.0.0.1:9/a');
    for (let n = 0; n < 5; n++) await record({ n });
    const claimed = await claimDueEvents(db, 10, 60_000);
    expect(claimed.length).toBe(5);
    let statements = 0;
    const count = (q: Queryable): Queryable => ({
      query: (sql, params) => {
        statements += 1;
        return q.query(sql, params);
      },
      exec: (sql) => q.exec(sql),
    });
    const counting = {
      ...count(db),
      transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(count(tx))),
    } as unknown as Database;
    const finisher = createAttemptFinisher(counting);
    const sent = (status: number): AttemptRecord => ({
      requestUrl: 'http://127.0.0.1:9/a',
      requestHeaders: [['Content-Type', 'application/json']],
      requestBody: '{}',
      responseStatus: status,
      responseHeaders: { 'content-length': '2' },
      responseBody: 'ok',
      responseTruncated: false,
      error: null,
      startedAt: new Date(),
      durationMs: 4.6,
    });
    const results = await Promise.all([
      ...claimed
        .slice(0, 4)
        .map((event) =>
          finisher.finish({ event, outcome: { status: 'delivered', deactivate: false }, record: sent(200) }),
        ),
      // 410 Gone: the event fails and its subscription is deactivated, in the same statement.
      finisher.finish({ event: claimed[4]!, outcome: { status: 'failed', deactivate: true }, record: sent(410) }),
      // An attempt whose event moved on (another worker's claim) changes nothing, though its event is in the batch.
      finisher.finish({
        event: { id: claimed[0]!.id, attempt: 7, subscription_id: row.id },
        outcome: { status: 'failed', deactivate: true },
        record: sent(500),
      }),
    ]);
    expect(results).toEqual([true, true, true, true, true, false]);
    // One statement for the six attempts, and the deactivation it asked for (in one transaction with it).
    expect(statements).toBe(2);
    expect(await rows('SELECT status, count(*)::int AS n FROM webhook_events GROUP BY status ORDER BY status')).toEqual(
      [
        { status: 'delivered', n: 4 },
        { status: 'failed', n: 1 },
      ],
    );
    expect(
      await rows('SELECT attempt, response_status, duration_ms FROM webhook_deliveries ORDER BY response_status'),
    ).toEqual([
      ...Array.from({ length: 4 }, () => ({ attempt: 1, response_status: 200, duration_ms: 5 })),
      { attempt: 1, response_status: 410, duration_ms: 5 },
    ]);
    expect(await rows('SELECT active FROM webhook_subscriptions WHERE id = $1', [row.id])).toEqual([{ active: false }]);
  });
});

describe('createAttemptFinisher() with a NextClaimer', () => {
  const sent200 = (url: string): AttemptRecord => ({
    requestUrl: url,
    requestHeaders: [['Content-Type', 'application/json']],
    requestBody: '{}',
    responseStatus: 200,
    responseHeaders: { 'content-length': '2' },
    responseBody: 'ok',
    responseTruncated: false,
    error: null,
    startedAt: new Date(),
    durationMs: 3,
  });

  it("claims up to the reserved slots' due events in its statement, never its batch's own [finish and claim]", async () => {
    const { row } = await subscribe('http://127.0.0.1:9/a');
    for (let n = 0; n < 6; n++) await record({ n });
    const batch = await claimDueEvents(db, 2, 60_000);
    let statements = 0;
    const counting = {
      query: (sql: string, params?: readonly unknown[]) => {
        statements += 1;
        return db.query(sql, params);
      },
    } as unknown as Database;
    const reserved: number[] = [];
    const started: { ids: string[]; reserved: number }[] = [];
    const finisher = createAttemptFinisher(counting, {
      leaseMs: 60_000,
      reserve: (batchSize) => {
        reserved.push(batchSize);
        return 3;
      },
      claimed: (events, slots) => started.push({ ids: events.map((e) => e.id), reserved: slots }),
    });
    const results = await Promise.all(
      batch.map((event) =>
        finisher.finish({ event, outcome: { status: 'delivered', deactivate: false }, record: sent200(row.url) }),
      ),
    );
    expect(results).toEqual([true, true]);
    expect(statements).toBe(1);
    expect(reserved).toEqual([2]);
    const next = (
      await rows<{ id: string }>(
        "SELECT id::text FROM webhook_events WHERE status = 'pending' ORDER BY next_attempt_at, id LIMIT 3",
      )
    ).map((r) => r.id);
    expect(started).toEqual([{ ids: next, reserved: 3 }]);
    expect(next.some((id) => batch.some((e) => e.id === id))).toBe(false);
    expect(
      await rows(
        'SELECT attempts, lease_until IS NOT NULL AS leased FROM webhook_events WHERE id = ANY($1::bigint[])',
        [next],
      ),
    ).toEqual(Array.from({ length: 3 }, () => ({ attempts: 1, leased: true })));
    // The sixth is still due; the claimed three are leased.
    expect((await claimDueEvents(db, 10, 60_000)).length).toBe(1);
  });

  it('claims nothing in a batch that deactivates a subscription [deactivation]', async () => {
    const { row } = await subscribe('http://127.0.0.1:9/a');
    for (let n = 0; n < 3; n++) await record({ n });
    const [event] = await claimDueEvents(db, 1, 60_000);
    let reserves = 0;
    const finisher = createAttemptFinisher(db, {
      leaseMs: 60_000,
      reserve: () => {
        reserves += 1;
        return 5;
      },
      claimed: () => {},
    });
    const gone = { ...sent200(row.url), responseStatus: 410 };
    expect(
      await finisher.finish({ event: event!, outcome: { status: 'failed', deactivate: true }, record: gone }),
    ).toBe(true);
    expect(reserves).toBe(0);
    // The two others are claimed afterwards, with their subscription seen inactive (the worker skips them).
    const after = await claimDueEvents(db, 10, 60_000);
    expect(after.map((e) => e.subscription_target?.active)).toEqual([false, false]);
  });
});

describe('msUntilNextDue() and an idle worker', () => {
  it('says nothing is due on an outbox without pending events, and when one falls due [empty outbox]', async () => {
    await db.query('DELETE FROM webhook_deliveries');
    await db.query('DELETE FROM webhook_events');
    expect(await msUntilNextDue(db)).toBeUndefined();
    const r = await receiver();
    await subscribe(r.url);
    await record({ data: { type: 'Note', id: '1' } });
    expect(await msUntilNextDue(db)).toBe(0);
    await db.query("UPDATE webhook_events SET next_attempt_at = now() + interval '1 hour'");
    expect(await msUntilNextDue(db)).toBeGreaterThan(3_500_000);
    await db.query('DELETE FROM webhook_events');
  });

  it('waits its poll interval between passes when nothing is pending [idle]', async () => {
    await db.query('DELETE FROM webhook_deliveries');
    await db.query('DELETE FROM webhook_events');
    let statements = 0;
    // The worker's database, counting its statements (every other member passed through as is).
    const counting = new Proxy(db, {
      get(target, key) {
        if (key === 'query')
          return (sql: string, params?: unknown[]) => {
            statements++;
            return target.query(sql, params);
          };
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    worker({ db: counting, pollIntervalMs: 200 });
    await sleep(1000);
    // A pass is a claim and the next-due read: about five passes in a second, never the hundreds of a busy loop.
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(14);
  });
});

describe('startWebhookWorker()', () => {
  it('POSTs the signed EventDelivery body and records the delivery [200]', async () => {
    const r = await receiver();
    const { row, secret } = await subscribe(r.url);
    worker();
    await record({ data: { type: 'Note', id: '7' } });
    await r.waitFor(1);
    const [got] = r.received;
    const [event] = await rows<{ id: string; uuid: string; status: string; attempts: number }>(
      'SELECT id::text, uuid::text, status, attempts FROM webhook_events',
    );
    expect(JSON.parse(got!.body)).toEqual({
      data: [
        {
          id: event!.uuid,
          type: 'EventDelivery',
          attributes: { name: NAME, attempt: 1, payload: '{"data":{"type":"Note","id":"7"}}' },
          relationships: { organization: { data: { type: 'Organization', id: organizationId } } },
        },
      ],
    });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe('addon-kit Webhooks');
    expect(got!.headers['x-pco-webhooks-authenticity']).toBe(
      createHmac('sha256', secret).update(got!.body).digest('hex'),
    );
    expect(got!.headers['webhook-id']).toBe(event!.uuid);
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    // The Standard Webhooks reference library verifies the signature (and the timestamp's freshness).
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(
      JSON.parse(got!.body),
    );
    await expect
      .poll(async () => (await rows<{ status: string }>('SELECT status FROM webhook_events'))[0])
      .toEqual({
        status: 'delivered',
      });
    const deliveries = await rows<Record<string, unknown>>(
      `SELECT attempt, request_url, request_body, response_status, response_body, response_truncated, error,
         request_headers->0 AS first_header
       FROM webhook_deliveries WHERE event_id = $1`,
      [event!.id],
    );
    // The body is not stored (it is the event's own body for the attempt): the reads rebuild the one sent, exactly.
    expect((await listDeliveries(db, event!.id)).map((d) => d.request_body)).toEqual([got!.body]);
    expect(deliveries).toEqual([
      {
        attempt: 1,
        request_url: r.url,
        request_body: null,
        response_status: 200,
        response_body: 'ok',
        response_truncated: false,
        error: null,
        first_header: ['Content-Type', 'application/json'],
      },
    ]);
    expect(row.active).toBe(true);
  });

  it('delivers on the third attempt at the scheduled times [500, 500, 200]', async () => {
    const r = await receiver((n) => (n < 2 ? 500 : 200));
    await subscribe(r.url);
    worker({ retryScale: 0.01 });
    await record({ n: 1 });
    await r.waitFor(3);
    const [first, second, third] = r.received;
    expect([first!.delivery.attempt, second!.delivery.attempt, third!.delivery.attempt]).toEqual([1, 2, 3]);
    expect(new Set(r.received.map((x) => x.delivery.id)).size).toBe(1);
    // 30 s and then 1 min, scaled by 0.01: 300 ms and 600 ms after each failure.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
    expect(second!.at - first!.at).toBeLessThan(300 + 1000);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(600);
    expect(third!.at - second!.at).toBeLessThan(600 + 1000);
    await expect
      .poll(async () => rows('SELECT status, attempts FROM webhook_events'))
      .toEqual([{ status: 'delivered', attempts: 3 }]);
    expect(await rows('SELECT attempt, response_status FROM webhook_deliveries ORDER BY attempt')).toEqual([
      { attempt: 1, response_status: 500 },
      { attempt: 2, response_status: 500 },
      { attempt: 3, response_status: 200 },
    ]);
  });

  it('deactivates the subscription at once and sends nothing more [410]', async () => {
    const r = await receiver(() => 410);
    const { row } = await subscribe(r.url);
    worker();
    await record({ n: 1 });
    await r.waitFor(1);
    await expect
      .poll(async () => rows('SELECT active FROM webhook_subscriptions WHERE id = $1', [row.id]))
      .toEqual([{ active: false }]);
    expect(await rows('SELECT status, attempts FROM webhook_events')).toEqual([{ status: 'failed', attempts: 1 }]);
    expect(await record({ n: 2 })).toBe(0);
    await sleep(500);
    expect(r.received).toHaveLength(1);
  });

  it('fails the event and deactivates the subscription after 16 retries [last failure]', async () => {
    const r = await receiver(() => 503);
    const { row } = await subscribe(r.url);
    worker({ retryScale: 0.000_001 });
    await record({ n: 1 });
    await r.waitFor(17);
    await expect
      .poll(async () => rows('SELECT active FROM webhook_subscriptions WHERE id = $1', [row.id]))
      .toEqual([{ active: false }]);
    expect(await rows('SELECT status, attempts FROM webhook_events')).toEqual([{ status: 'failed', attempts: 17 }]);
    expect(r.received.map((x) => x.delivery.attempt)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    await sleep(300);
    expect(r.received).toHaveLength(17);
  });

  it('times out a hanging receiver and retries it while other subscriptions keep flowing [hang]', async () => {
    const hanging = await receiver((n) => (n === 0 ? 'hang' : 200));
    const healthy = await receiver();
    await subscribe(hanging.url);
    await subscribe(healthy.url, 'people.v2.events.note.updated');
    worker({ timeoutMs: 3000, retryScale: 0.01 });
    await record({ n: 1 });
    await hanging.waitFor(1);
    for (let i = 0; i < 5; i++) await record({ i }, 'people.v2.events.note.updated' as typeof NAME);
    await healthy.waitFor(5);
    // All five arrived while the first attempt still hung (before its time limit ran out).
    const hungAt = hanging.received[0]!.at;
    for (const got of healthy.received) expect(got.at - hungAt).toBeLessThan(3000);
    await hanging.waitFor(2);
    await expect
      .poll(async () =>
        rows(
          `SELECT d.attempt, d.response_status, d.error FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
           WHERE e.name = $1 ORDER BY d.attempt`,
          [NAME],
        ),
      )
      .toEqual([
        { attempt: 1, response_status: null, error: 'timeout' },
        { attempt: 2, response_status: 200, error: null },
      ]);
    // The retry started no sooner than the time limit after the first attempt started, plus the first retry wait
    // (30 s × 0.01). Measured between the attempts' own start times: the receiver sees a request a little after its
    // attempt started, more so on a busy machine.
    const starts = await rows<{ attempt: number; started_at: Date }>(
      `SELECT d.attempt, d.started_at FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE e.name = $1 ORDER BY d.attempt`,
      [NAME],
    );
    expect(starts.map((r) => r.attempt)).toEqual([1, 2]);
    expect(starts[1]!.started_at.getTime() - starts[0]!.started_at.getTime()).toBeGreaterThanOrEqual(3000 + 300);
  });

  it('keeps the first 4 KiB of a response body [truncated]', async () => {
    const r = await receiver(() => ({ status: 200, body: 'x'.repeat(10_000) }));
    await subscribe(r.url);
    worker();
    await record({ n: 1 });
    await r.waitFor(1);
    await expect
      .poll(async () => rows('SELECT length(response_body) AS length, response_truncated FROM webhook_deliveries'))
      .toEqual([{ length: 4096, response_truncated: true }]);
  });

  it('refuses a loopback receiver unless private addresses are allowed [SSRF]', async () => {
    const r = await receiver();
    await subscribe(r.url);
    worker({ allowNonPublic: false });
    await record({ n: 1 });
    await expect
      .poll(async () => rows('SELECT attempt, response_status, error FROM webhook_deliveries'))
      .toEqual([{ attempt: 1, response_status: null, error: 'refused_address' }]);
    expect(await rows('SELECT status FROM webhook_events')).toEqual([{ status: 'pending' }]);
    expect(r.received).toEqual([]);
  });

  it('signs with both secrets during a rotation grace window [rotation]', async () => {
    const r = await receiver();
    const { row, secret: old } = await subscribe(r.url);
    const current = (await rotateSubscriptionSecret(db, box, { organizationId, personId: adminId }, row.id))!;
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    worker();
    await record({ n: 1 });
    await r.waitFor(1);
    const [got] = r.received;
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [current, old])
      expect(new Webhook(s).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(got!.body));
    expect(got!.headers['x-pco-webhooks-authenticity']).toBe(
      createHmac('sha256', current).update(got!.body).digest('hex'),
    );
    // After the grace window only the current secret signs.
    await db.query("UPDATE webhook_subscriptions SET previous_secret_until = now() - interval '1 second'");
    await record({ n: 2 });
    await r.waitFor(2);
    const later = r.received[1]!;
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(old).verify(later.body, later.headers as Record<string, string>)).toThrow();
    expect(new Webhook(current).verify(later.body, later.headers as Record<string, string>)).toBeTruthy();
  });

  it('skips an event whose subscriber may no longer see People data [visibility]', async () => {
    const r = await receiver();
    await subscribe(r.url);
    await record({ n: 1 });
    await db.query("DELETE FROM person_product_roles WHERE person_id = $1 AND product = 'people'", [adminId]);
    try {
      worker();
      await expect.poll(async () => rows('SELECT status FROM webhook_events')).toEqual([{ status: 'skipped' }]);
      expect(r.received).toEqual([]);
      expect(await rows('SELECT id FROM webhook_deliveries')).toEqual([]);
    } finally {
      await db.query("INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, 'people', 'manager')", [
        adminId,
      ]);
    }
  });

  it('keeps one attempt in flight per event with two workers claiming [two workers]', async () => {
    const r = await receiver(undefined, 5);
    await subscribe(r.url);
    await subscribe(r.url);
    for (let i = 0; i < 100; i++) await record({ i });
    worker({ concurrency: 4 });
    worker({ concurrency: 4 });
    await r.waitFor(200, 60_000);
    await expect
      .poll(async () => rows("SELECT count(*)::int AS n FROM webhook_events WHERE status = 'delivered'"))
      .toEqual([{ n: 200 }]);
    const ids = r.received.map((x) => x.delivery.id);
    expect(new Set(ids).size).toBe(200);
    expect(ids).toHaveLength(200);
    expect(await rows('SELECT count(*)::int AS n, max(attempt) AS max FROM webhook_deliveries')).toEqual([
      { n: 200, max: 1 },
    ]);
  });

  it('deletes finished events past the retention with their deliveries, never pending ones [retention]', async () => {
    const r = await receiver();
    await subscribe(r.url);
    for (let i = 0; i < 3; i++) await record({ i });
    const w = worker();
    await r.waitFor(3);
    await w.stop();
    await expect
      .poll(async () => rows("SELECT count(*)::int AS n FROM webhook_events WHERE status = 'delivered'"))
      .toEqual([{ n: 3 }]);
    await record({ i: 3 });
    const [oldest] = await rows<{ id: string }>(
      "SELECT id::text FROM webhook_events WHERE status = 'delivered' ORDER BY id LIMIT 1",
    );
    await db.query(
      "UPDATE webhook_events SET updated_at = now() - interval '31 days' WHERE id = $1 OR status = 'pending'",
      [oldest!.id],
    );
    expect(await deleteFinishedEvents(db, 30)).toBe(1);
    expect(await rows('SELECT status FROM webhook_events ORDER BY id')).toEqual([
      { status: 'delivered' },
      { status: 'delivered' },
      { status: 'pending' },
    ]);
    expect(await rows('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1', [oldest!.id])).toEqual([
      { n: 0 },
    ]);
  });
});
