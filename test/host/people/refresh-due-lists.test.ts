import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { refreshDueLists } from '#host/people/refresh-due-lists.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;
let org: string;

async function list(
  name: string,
  values: { autoRefresh: boolean; frequency: string; refreshedAt: string | null; invalid?: boolean },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO lists (organization_id, name, auto_refresh, auto_refresh_frequency, refreshed_at, invalid) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text',
    [org, name, values.autoRefresh, values.frequency, values.refreshedAt, values.invalid ?? false],
  );
  await db.query(
    "INSERT INTO list_rules (list_id, attribute, operator, value) VALUES ($1, 'membership', 'is', 'Member')",
    [rows[0]!.id],
  );
  return rows[0]!.id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  // The seeded lists do not auto-refresh; this organization's lists are the only candidates.
  await db.query('UPDATE lists SET auto_refresh = false');
  org = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
});
afterAll(() => db.close());

describe('refreshDueLists()', () => {
  it('runs exactly the auto-refresh lists whose frequency has elapsed, never-run ones first', async () => {
    const now = '2026-06-15T12:00:00Z';
    const due = {
      never: await list('never run', { autoRefresh: true, frequency: 'weekly', refreshedAt: null }),
      hourly: await list('hourly, 61 min ago', {
        autoRefresh: true,
        frequency: 'hourly',
        refreshedAt: '2026-06-15T10:59:00Z',
      }),
      daily: await list('daily, exactly a day ago', {
        autoRefresh: true,
        frequency: 'daily',
        refreshedAt: '2026-06-14T12:00:00Z',
      }),
      monthly: await list('monthly, 2 months ago', {
        autoRefresh: true,
        frequency: 'monthly',
        refreshedAt: '2026-04-15T00:00:00Z',
      }),
    };
    const notDue = [
      await list('hourly, 59 min ago', { autoRefresh: true, frequency: 'hourly', refreshedAt: '2026-06-15T11:01:00Z' }),
      await list('weekly, 6 days ago', { autoRefresh: true, frequency: 'weekly', refreshedAt: '2026-06-09T12:00:00Z' }),
      await list('off', { autoRefresh: false, frequency: 'hourly', refreshedAt: null }),
      await list('invalid', { autoRefresh: true, frequency: 'hourly', refreshedAt: null, invalid: true }),
    ];
    const refreshed = await refreshDueLists(db, new Date(now));
    expect(refreshed).toEqual([due.never, due.monthly, due.daily, due.hourly].map((listId) => ({ listId, ok: true })));
    const { rows } = await db.query<{ id: string; refreshed_at: Date | null; status: string }>(
      'SELECT id::text, refreshed_at, status FROM lists WHERE id = ANY($1::bigint[])',
      [[...Object.values(due), ...notDue]],
    );
    for (const row of rows) {
      const ran = Object.values(due).includes(row.id);
      expect(row.status).toBe(ran ? 'complete' : 'never_run');
      if (ran) expect(new Date(row.refreshed_at!).toISOString()).toBe('2026-06-15T12:00:00.000Z');
    }
    expect(await refreshDueLists(db, new Date(now))).toEqual([]);
  });
});
