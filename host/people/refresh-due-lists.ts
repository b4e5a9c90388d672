/**
 * Auto-refresh: runs the lists whose `auto_refresh` is on and whose last run is older than their
 * `auto_refresh_frequency`. Called with the clock's time by whatever schedules it (the host's list scheduler,
 * host/people/list-scheduler.ts, or a cron job). Several hosts may call it at once: a pass claims each list with
 * a short lease (a conditional UPDATE, committed before the run) that also re-checks that the list is still due,
 * so each due list is run once, by whichever pass claimed it.
 */
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { recordListEvent } from './people-events.ts';
import { runList } from './run-list.ts';

/** How long a list's results stay fresh, by auto_refresh_frequency. */
export const REFRESH_INTERVALS = { hourly: '1 hour', daily: '1 day', weekly: '7 days', monthly: '1 month' } as const;

/** One list an auto-refresh pass ran, and whether its rules could be run. */
export interface RefreshedList {
  listId: string;
  ok: boolean;
}

/**
 * How long a claimed list stays claimed: a run longer than this may be claimed (and run) again by another
 * pass. The lease is released when the run ends.
 */
export const LIST_RUN_LEASE = '15 minutes';

/**
 * SQL condition on a `lists` row: due at `now` (an SQL expression) — auto-refresh on, valid, and never run or last
 * run at least its frequency ago.
 */
export function refreshDueSql(now: string): string {
  return `auto_refresh AND NOT invalid
  AND (refreshed_at IS NULL OR refreshed_at <= ${now} - (CASE auto_refresh_frequency
        WHEN 'hourly' THEN interval '${REFRESH_INTERVALS.hourly}' WHEN 'daily' THEN interval '${REFRESH_INTERVALS.daily}'
        WHEN 'weekly' THEN interval '${REFRESH_INTERVALS.weekly}' ELSE interval '${REFRESH_INTERVALS.monthly}' END))`;
}

/** Due at `$1`. */
const DUE = refreshDueSql('$1::timestamptz');

/**
 * Runs up to `limit` due lists (never-run first, then the stalest) that no other pass holds; lists marked
 * invalid are skipped until edited or run by hand. A list whose run throws is logged and left for a later pass.
 */
export async function refreshDueLists(
  db: Database,
  now: Date,
  limit = 50,
  logger?: Logger,
  /** The host's base URL: a run that changes a list's results records its `list.run` webhook event. */
  baseUrl?: string,
): Promise<RefreshedList[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text FROM lists WHERE ${DUE} AND (run_lease_until IS NULL OR run_lease_until <= $1)
     ORDER BY refreshed_at ASC NULLS FIRST, lists.id ASC
     LIMIT $2`,
    [now, limit],
  );
  const refreshed: RefreshedList[] = [];
  for (const candidate of rows) {
    const organizationId = await claimList(db, candidate.id, now);
    if (!organizationId) continue;
    try {
      const outcome = await runList(db, {
        organizationId,
        listId: candidate.id,
        now,
        ...(baseUrl === undefined
          ? {}
          : { onChanged: (tx) => recordListEvent({ tx, organizationId, baseUrl }, 'run', candidate.id) }),
      });
      refreshed.push({ listId: candidate.id, ok: outcome.ok });
    } catch (error) {
      logger?.warn({ listId: candidate.id, err: error }, 'scheduled list run failed');
    } finally {
      await db.query('UPDATE lists SET run_lease_until = NULL WHERE id = $1', [candidate.id]);
    }
  }
  return refreshed;
}

/**
 * Claims a list for one run: succeeds (the list's organization) only when no live lease is held and the list is
 * still due — a list another pass has just run is no longer due, so it is not run twice.
 */
async function claimList(db: Database, listId: string, now: Date): Promise<string | undefined> {
  const { rows } = await db.query<{ organization_id: string }>(
    `UPDATE lists SET run_lease_until = $1::timestamptz + interval '${LIST_RUN_LEASE}'
     WHERE id = $2 AND ${DUE} AND (run_lease_until IS NULL OR run_lease_until <= $1)
     RETURNING organization_id::text`,
    [now, listId],
  );
  return rows[0]?.organization_id;
}
