/**
 * P8, webhooks (issue 26), in one process over the run's database:
 * - deliveries per second to a receiver on loopback (10 subscriptions, the worker claiming, signing, sending and
 *   recording each attempt; counted as they arrive, distinct `webhook-id`s, with the outbox maintained between rounds
 *   as a running host's embedded maintenance does) ÷ a bare loop POSTing the same bodies with the same HTTP client (host/outbound's
 *   sendOutbound over its keep-alive pool) at the same concurrency. Goal ≥ 0.5.
 * - Note creates per second (`POST /people/v2/people/{id}/notes`, 10 at a time) with 10 active subscriptions to
 *   note.created ÷ with none. Goal ≥ 0.9. The delivery worker is off for this one: what is measured is the write
 *   path (the change's one outbox row in the write's transaction and the NOTIFY; the worker fans it out into events),
 *   delivery never being inline.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHost } from '#host/app.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { resolveHostConfig } from '#host/config.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { maintainOnce } from '#host/db/embedded-maintenance.ts';
import { createLogger } from '#host/logger.ts';
import { createUpstreamPool, sendOutbound } from '#host/outbound/index.ts';
import { deliveryBody } from '#host/webhooks/delivery-body.ts';
import { startWebhookWorker } from '#host/webhooks/delivery-worker.ts';
import { recordEvent } from '#host/webhooks/record-event.ts';
import { createSubscription } from '#host/webhooks/subscription-store.ts';
import { databaseName, type Benchmark } from './runner/context.ts';
import { processCpuSeconds } from './runner/cpu.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { formatRate } from './runner/load.ts';
import { progress } from './runner/rounds.ts';
import { compareRow, printedRow, type FigureRow } from './runner/table.ts';

const CONCURRENCY = 16;
const EVENTS_PER_ROUND = 1000;
const KEY = { id: 'bench', key: Buffer.alloc(32, 9).toString('base64') };

export const runP8: Benchmark = async ({ options }) => {
  const bench = await createBenchDatabase(options);
  const db = await bench.open();
  // The worker's deliveries are counted where they arrive: distinct `webhook-id`s answered 200 (at least once: a
  // repeat is not counted twice). The bare loop's requests carry no id and are timed by the loop itself.
  const arrived = { ids: new Set<string>(), wanted: 0, done: () => {} };
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200).end('ok');
      const id = req.headers['webhook-id'];
      if (typeof id !== 'string') return;
      arrived.ids.add(id);
      if (arrived.ids.size === arrived.wanted) arrived.done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const box = createSecretBox([KEY]);
  const config = resolveHostConfig(
    {
      baseUrl: 'http://localhost:4000',
      dataDir: 'memory://',
      logLevel: 'silent',
      sessionSecret: 'bench-session-secret-bench-session-secret-0123',
      encryptionKeys: [KEY],
      rateLimit: 'off',
      listRefreshIntervalSeconds: 0,
      addonSweepIntervalSeconds: 0,
      embeddedMaintenanceIntervalSeconds: 0,
      webhookPollIntervalMs: 0,
    },
    {},
  );
  const host = await createHost({ config, db, logger: createLogger('silent') });
  const server = createServer(host.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hostUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pool = createUpstreamPool();
  try {
    const editor = (
      await db.query<{ id: string; organization_id: string }>(
        "SELECT id::text, organization_id::text FROM people WHERE email = 'editor@demo.test'",
      )
    ).rows[0]!;
    const organizationId = editor.organization_id;
    const subject = (
      await db.query<{ id: string }>('SELECT id::text FROM people WHERE organization_id = $1 ORDER BY id LIMIT 1', [
        organizationId,
      ])
    ).rows[0]!.id;
    const token = await createPersonalAccessToken(db, editor.id, 'bench');
    const auth = `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
    for (let i = 0; i < 10; i++)
      await createSubscription(db, box, {
        organizationId,
        personId: editor.id,
        applicationId: null,
        name: 'people.v2.events.note.created',
        url: receiverUrl,
        active: true,
      });

    /**
     * CPU seconds used so far by this process (key 0) and, on PostgreSQL, by each of the bench database's server
     * processes: what a delivery costs moves far less with the machine's other load than the throughput does.
     */
    const cpuNow = async (): Promise<Map<number, number>> => {
      const own = process.cpuUsage();
      const seconds = new Map([[0, (own.user + own.system) / 1e6]]);
      if (db.kind !== 'postgres') return seconds;
      const { rows } = await db.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
      );
      for (const { pid } of rows) {
        try {
          seconds.set(pid, processCpuSeconds(pid));
        } catch {
          // The connection ended meanwhile.
        }
      }
      return seconds;
    };
    /** CPU seconds since `before`: a server process that ended meanwhile is left out (never counted negative). */
    const cpuSince = async (before: Map<number, number>): Promise<number> => {
      let seconds = 0;
      for (const [pid, now] of await cpuNow()) seconds += now - (before.get(pid) ?? 0);
      return seconds;
    };
    const cpuPerDelivery = { worker: [] as number[], bare: [] as number[] };
    const cpuPerCreate = { with: [] as number[], without: [] as number[] };

    /** Creates/s of `seconds` of note creates, 10 at a time. */
    const createRate = async (cpu: number[]): Promise<number> => {
      const until = performance.now() + options.seconds * 1000;
      const cpuBefore = await cpuNow();
      let done = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (performance.now() < until) {
            const res = await fetch(`${hostUrl}/people/v2/people/${subject}/notes`, {
              method: 'POST',
              headers: { authorization: auth, 'user-agent': 'addon-kit-bench/1.0', 'content-type': 'application/json' },
              body: JSON.stringify({ data: { type: 'Note', attributes: { note: 'bench note' } } }),
            });
            if (res.status !== 201) throw new Error(`note create answered ${res.status}`);
            await res.arrayBuffer();
            done++;
          }
        }),
      );
      cpu.push((1e6 * (await cpuSince(cpuBefore))) / done);
      return done / options.seconds;
    };

    /** Deliveries/s of the worker over EVENTS_PER_ROUND events (10 subscriptions × a tenth as many records). */
    const workerRate = async (): Promise<number> => {
      await db.query('UPDATE webhook_subscriptions SET active = true');
      // The create rounds' changes (never fanned out: the worker is off for them) and events are not this round's.
      await db.query('DELETE FROM webhook_changes');
      await db.query('DELETE FROM webhook_events');
      // What a running host's embedded maintenance (every 60 s, off in this bench) does for the outbox the earlier
      // rounds filled and emptied: its dead rows reclaimed, its statistics taken. PostgreSQL runs its own autovacuum.
      if (db.kind === 'pglite') await maintainOnce(db);
      for (let i = 0; i < EVENTS_PER_ROUND / 10; i++)
        await db.transaction((tx) =>
          recordEvent(tx, {
            organizationId,
            name: 'people.v2.events.note.created',
            payload: { data: { id: String(i) } },
          }),
        );
      arrived.ids.clear();
      arrived.wanted = EVENTS_PER_ROUND;
      const allArrived = new Promise<void>((resolve) => (arrived.done = resolve));
      const started = performance.now();
      const cpuBefore = await cpuNow();
      const worker = startWebhookWorker({
        db,
        box,
        logger: createLogger('silent'),
        timeoutMs: 10_000,
        retryScale: 1,
        concurrency: CONCURRENCY,
        pollIntervalMs: 50,
        retentionDays: 30,
        allowNonPublic: true,
        userAgent: 'addon-kit Webhooks',
        pool,
      });
      await allArrived;
      const seconds = (performance.now() - started) / 1000;
      cpuPerDelivery.worker.push((1e6 * (await cpuSince(cpuBefore))) / EVENTS_PER_ROUND);
      // Untimed: the last attempts recorded, every event delivered (none left pending) before the next round.
      for (;;) {
        const left = (
          await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events WHERE status = 'pending'")
        ).rows[0]!.n;
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await worker.stop();
      return EVENTS_PER_ROUND / seconds;
    };

    /** POSTs/s of the same number of the same bodies, straight through sendOutbound. */
    const bareRate = async (): Promise<number> => {
      const bodies = Array.from({ length: EVENTS_PER_ROUND }, (_, i) =>
        deliveryBody({
          uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          name: 'people.v2.events.note.created',
          attempt: 1,
          payload: JSON.stringify({ data: { id: String(i) } }),
          organizationId,
        }),
      );
      let next = 0;
      const started = performance.now();
      const cpuBefore = await cpuNow();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < bodies.length) {
            const body = bodies[next++]!;
            const res = await sendOutbound({
              url: new URL(receiverUrl),
              method: 'POST',
              headers: [['Content-Type', 'application/json']],
              body: Buffer.from(body),
              allowNonPublic: true,
              timeoutMs: 10_000,
              pool,
            });
            for await (const chunk of res) void chunk;
          }
        }),
      );
      const rate = EVENTS_PER_ROUND / ((performance.now() - started) / 1000);
      cpuPerDelivery.bare.push((1e6 * (await cpuSince(cpuBefore))) / EVENTS_PER_ROUND);
      return rate;
    };

    const delivered: number[] = [];
    const bare: number[] = [];
    const withSubscriptions: number[] = [];
    const without: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      delivered.push(await workerRate());
      bare.push(await bareRate());
      // A B, then B A: what the worker's round leaves behind (PostgreSQL's autovacuum of the outbox it emptied, on a
      // server process this bench counts) falls on each side in turn, not always on the first.
      const createsWith = async () => {
        await db.query('UPDATE webhook_subscriptions SET active = true');
        withSubscriptions.push(await createRate(cpuPerCreate.with));
      };
      const createsWithout = async () => {
        await db.query('UPDATE webhook_subscriptions SET active = false');
        without.push(await createRate(cpuPerCreate.without));
      };
      if (round % 2 === 0) {
        await createsWith();
        await createsWithout();
      } else {
        await createsWithout();
        await createsWith();
      }
      progress(
        `P8 round ${round + 1}: ${delivered.at(-1)!.toFixed(0)} vs ${bare.at(-1)!.toFixed(0)} deliveries/s; ` +
          `${withSubscriptions.at(-1)!.toFixed(0)} vs ${without.at(-1)!.toFixed(0)} creates/s; ` +
          `${cpuPerDelivery.worker.at(-1)!.toFixed(0)} vs ${cpuPerDelivery.bare.at(-1)!.toFixed(0)} CPU µs per delivery`,
      );
    }
    const name = databaseName(options);
    const rows: FigureRow[] = [
      compareRow({
        figure: `P8 deliveries/s, worker ÷ bare POST loop (${name})`,
        a: delivered,
        b: bare,
        format: formatRate,
        goal: { on: 'ratio', op: '>=', value: 0.5, text: '≥ 0.5' },
      }),
      printedRow({
        figure: `P8 CPU µs per delivery, worker ÷ bare POST loop (${name}${db.kind === 'postgres' ? ', with the server' : ''})`,
        a: cpuPerDelivery.worker,
        b: cpuPerDelivery.bare,
        format: (us) => `${us.toFixed(0)} µs`,
      }),
      compareRow({
        figure: `P8 note create, 10 subscriptions ÷ none (${name})`,
        a: withSubscriptions,
        b: without,
        format: formatRate,
        goal: { on: 'ratio', op: '>=', value: 0.9, text: '≥ 0.9' },
      }),
      printedRow({
        figure: `P8 CPU µs per note create, 10 subscriptions ÷ none (${name}${db.kind === 'postgres' ? ', with the server' : ''})`,
        a: cpuPerCreate.with,
        b: cpuPerCreate.without,
        format: (us) => `${us.toFixed(0)} µs`,
      }),
    ];
    return rows;
  } finally {
    pool.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await host.close();
    await db.close();
    await bench.drop();
  }
};
