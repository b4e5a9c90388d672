/**
 * Auto-refresh: runs the lists whose `auto_refresh` is on and whose last run is older than their
 * `auto_refresh_frequency`. Called with the clock's time by whatever schedules it (a timer in the
 * host process, or a cron job); several hosts may call it at once — each list run locks its row.
 */
import type { Database } from '../db/database.ts';
import { runList } from './run-list.ts';

/** How long a list's results stay fresh, by auto_refresh_frequency. */
export const REFRESH_INTERVALS = { hourly: '1 hour', daily: '1 day', weekly: '7 days', monthly: '1 month' } as const;

/** One list an auto-refresh pass ran, and whether its rules could be run. */
export interface RefreshedList {
  listId: string;
  ok: boolean;
}

/** Runs up to `limit` due lists (never-run first, then the stalest); lists marked invalid are skipped until edited or run by hand. */
export async function refreshDueLists(db: Database, now: Date, limit = 50): Promise<RefreshedList[]> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `SELECT id::text, organization_id::text FROM lists
     WHERE auto_refresh AND NOT invalid
       AND (refreshed_at IS NULL OR refreshed_at <= $1::timestamptz - (CASE auto_refresh_frequency
             WHEN 'hourly' THEN interval '${REFRESH_INTERVALS.hourly}' WHEN 'daily' THEN interval '${REFRESH_INTERVALS.daily}'
             WHEN 'weekly' THEN interval '${REFRESH_INTERVALS.weekly}' ELSE interval '${REFRESH_INTERVALS.monthly}' END))
     ORDER BY refreshed_at ASC NULLS FIRST, id ASC
     LIMIT $2`,
    [now, limit],
  );
  const refreshed: RefreshedList[] = [];
  for (const list of rows) {
    const outcome = await runList(db, { organizationId: list.organization_id, listId: list.id, now });
    refreshed.push({ listId: list.id, ok: outcome.ok });
  }
  return refreshed;
}
