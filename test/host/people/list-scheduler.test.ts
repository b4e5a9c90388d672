/**
 * The List scheduler: due auto-refresh Lists are run by the host's timer, each exactly once however many passes
 * or hosts share the database (the run lease), never a List that is not due; and the scheduler stops with the host.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHost } from '#host/app.ts';
import type { Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { refreshDueLists } from '#host/people/refresh-due-lists.ts';
import { createTestDatabase } from '../../support/database.ts';
import { testConfig } from '../../support/host.ts';

let db: Database;
let org: string;

beforeAll(async () => {
  db = await createTestDatabase();
  org = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
  // Every run of a list writes its refreshed_at once: a row here per run, whichever process made it.
  await db.exec(`
    CREATE TABLE test_list_runs (list_id bigint NOT NULL);
    CREATE FUNCTION test_log_list_run() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_list_runs VALUES (NEW.id); RETURN NEW; END $$;
    CREATE TRIGGER test_list_runs AFTER UPDATE OF refreshed_at ON lists FOR EACH ROW EXECUTE FUNCTION test_log_list_run();`);
});
afterAll(() => db.close());
beforeEach(async () => {
  // The seeded lists do not take part; each test's own lists are the only candidates.
  await db.query('UPDATE lists SET auto_refresh = false');
  await db.query('DELETE FROM test_list_runs');
});

async function list(
  name: string,
  values: { frequency: string; refreshedAt: string | null; leaseUntil?: string },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO lists (organization_id, name, auto_refresh, auto_refresh_frequency, refreshed_at, run_lease_until) VALUES ($1, $2, true, $3, $4, $5) RETURNING id::text',
    [org, name, values.frequency, values.refreshedAt, values.leaseUntil ?? null],
  );
  await db.query(
    "INSERT INTO list_rules (list_id, attribute, operator, value) VALUES ($1, 'membership', 'is', 'Member')",
    [rows[0]!.id],
  );
  return rows[0]!.id;
}

/** How many times each list was run. */
async function runsOf(ids: string[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ id: string; runs: number }>(
    'SELECT l.id::text, (SELECT count(*)::int FROM test_list_runs r WHERE r.list_id = l.id) AS runs FROM lists l WHERE l.id = ANY($1::bigint[])',
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.runs]));
}

const counts = (ids: string[], n: number) => Object.fromEntries(ids.map((id) => [id, n]));

describe('refreshDueLists() [several passes]', () => {
  it('runs each due list exactly once when two passes run at the same time, and releases the leases', async () => {
    const now = new Date('2026-06-15T12:00:00Z');
    const due = [
      await list('never run', { frequency: 'daily', refreshedAt: null }),
      await list('hourly, 2 hours ago', { frequency: 'hourly', refreshedAt: '2026-06-15T10:00:00Z' }),
      await list('weekly, 8 days ago', { frequency: 'weekly', refreshedAt: '2026-06-07T12:00:00Z' }),
    ];
    const notDue = await list('daily, an hour ago', { frequency: 'daily', refreshedAt: '2026-06-15T11:00:00Z' });
    const [first, second] = await Promise.all([refreshDueLists(db, now), refreshDueLists(db, now)]);
    expect([...first, ...second].map((r) => r.listId).sort()).toEqual([...due].sort());
    expect(await runsOf([...due, notDue])).toEqual({ ...counts(due, 1), [notDue]: 0 });
    const { rows } = await db.query<{ refreshed_at: Date; run_lease_until: Date | null }>(
      'SELECT refreshed_at, run_lease_until FROM lists WHERE id = ANY($1::bigint[])',
      [due],
    );
    expect(rows.map((r) => [r.refreshed_at.toISOString(), r.run_lease_until])).toEqual(
      due.map(() => [now.toISOString(), null]),
    );
  });

  it('leaves a list another process holds a live lease on, and takes one whose lease has run out', async () => {
    const now = new Date('2026-06-15T12:00:00Z');
    const held = await list('held elsewhere', {
      frequency: 'hourly',
      refreshedAt: null,
      leaseUntil: '2026-06-15T12:05:00Z',
    });
    const lapsed = await list('lease ran out', {
      frequency: 'hourly',
      refreshedAt: null,
      leaseUntil: '2026-06-15T11:55:00Z',
    });
    expect(await refreshDueLists(db, now)).toEqual([{ listId: lapsed, ok: true }]);
    expect(await runsOf([held, lapsed])).toEqual({ [held]: 0, [lapsed]: 1 });
  });
});

describe('the List scheduler [createHost]', () => {
  it('runs the due lists from two hosts on one database, each exactly once, and not the lists that are not due', async () => {
    const due = [
      await list('never run', { frequency: 'hourly', refreshedAt: null }),
      await list('stale', { frequency: 'daily', refreshedAt: '2020-01-01T00:00:00Z' }),
    ];
    const fresh = new Date(Date.now() - 60_000).toISOString();
    const notDue = await list('run a minute ago', { frequency: 'hourly', refreshedAt: fresh });
    const hosts = await Promise.all(
      [1, 2].map(() =>
        createHost({
          config: testConfig({ listRefreshIntervalSeconds: 1, addonSweepIntervalSeconds: 0 }),
          db,
          logger: createLogger('silent'),
        }),
      ),
    );
    try {
      await vi.waitFor(async () => expect(await runsOf(due)).toEqual(counts(due, 1)), {
        timeout: 30_000,
        interval: 200,
      });
      // No list was run by both hosts.
      const passes = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM test_list_runs')).rows[0]!.n;
      expect(passes).toBe(due.length);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
    expect(await runsOf([...due, notDue])).toEqual({ ...counts(due, 1), [notDue]: 0 });
    const { rows } = await db.query<{ status: string; refreshed_at: Date }>(
      'SELECT status, refreshed_at FROM lists WHERE id = ANY($1::bigint[]) ORDER BY id',
      [due],
    );
    expect(rows.map((r) => r.status)).toEqual(['complete', 'complete']);
    expect(rows.every((r) => Date.now() - r.refreshed_at.getTime() < 5 * 60_000)).toBe(true);
    const notDueRow = (await db.query<{ refreshed_at: Date }>('SELECT refreshed_at FROM lists WHERE id = $1', [notDue]))
      .rows[0]!;
    expect(notDueRow.refreshed_at.toISOString()).toBe(fresh);
  });

  it(
    'stops with the host: a process that ran the scheduler exits by itself once the host is closed',
    { timeout: 120_000 },
    async () => {
      const script = fileURLToPath(new URL('../../support/scheduler-exit.ts', import.meta.url));
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      try {
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect([code, stdout]).toEqual([0, 'ran: complete\nclosed\n']);
      } finally {
        if (child.exitCode === null) child.kill();
      }
    },
  );
});
