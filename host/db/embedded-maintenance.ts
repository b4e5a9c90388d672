/**
 * The embedded database's autovacuum. PGlite runs PostgreSQL in single-user mode, where no autovacuum worker
 * exists: left alone, no table of the embedded database is ever analyzed — the planner chooses every plan
 * without statistics (the refresh grant's read was planned as a scan of every grant: 1.0–1.5 ms against 0.56 ms
 * with a plan for the real sizes) — and no dead row is ever reclaimed (sessions' last-seen touches, rotated
 * tokens, List runs, rate-limit counters grow their tables for ever).
 *
 * Every `intervalMs` (the first pass one interval after the start) one pass does what autovacuum would, with its
 * default thresholds: `VACUUM (ANALYZE)` for a table whose dead rows exceed 50 + 20 % of its rows, `ANALYZE` for
 * one changed in more than 50 + 10 % of its rows since its last analysis or never analyzed at all. One table per
 * statement with a turn of the event loop between them, since PGlite runs one statement at a time for the whole
 * process. PostgreSQL servers run their own autovacuum: nothing is done there.
 */
import { setImmediate } from 'node:timers/promises';
import { quoteIdent, type Database } from './database.ts';
import type { Logger } from 'pino';
import { startPasses, type Passes } from '../passes.ts';

/** What one pass found due, per table. */
export interface TableMaintenance {
  table: string;
  /** `vacuum`: VACUUM (ANALYZE); `analyze`: ANALYZE alone. */
  action: 'vacuum' | 'analyze';
}

/**
 * The tables of the current schema that autovacuum's default thresholds make due. The cumulative statistics are
 * flushed first (a backend reports them only every so often); `reltuples` is -1 for a table never analyzed.
 */
export async function tablesDue(db: Database): Promise<TableMaintenance[]> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<{ table: string; action: 'vacuum' | 'analyze' }>(
    `SELECT relname AS table, CASE WHEN to_vacuum THEN 'vacuum' ELSE 'analyze' END AS action
     FROM (SELECT s.relname,
                  s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, s.n_live_tup) AS to_vacuum,
                  s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) OR (c.reltuples < 0 AND s.n_live_tup > 0) AS to_analyze
           FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
           WHERE s.schemaname = current_schema()) t
     WHERE to_vacuum OR to_analyze
     ORDER BY relname`,
  );
  return rows;
}

/** One pass: every due table vacuumed or analyzed, a statement each; returns what was done. */
export async function maintainOnce(db: Database): Promise<TableMaintenance[]> {
  const due = await tablesDue(db);
  for (const { table, action } of due) {
    await setImmediate(); // a turn of the event loop: requests get in between tables
    await db.exec(action === 'vacuum' ? `VACUUM (ANALYZE) ${quoteIdent(table)}` : `ANALYZE ${quoteIdent(table)}`);
  }
  return due;
}

/**
 * Starts the passes on the embedded database (a no-op on PostgreSQL, or when `intervalMs` is 0); the caller must
 * `stop()` them on shutdown. `onPass` hears what each pass did (tests, metrics).
 */
export function startEmbeddedMaintenance(options: {
  db: Database;
  logger: Logger;
  intervalMs: number;
  onPass?: (done: TableMaintenance[]) => void;
}): Passes {
  const { db, logger, intervalMs } = options;
  if (db.kind !== 'pglite' || intervalMs <= 0) return { stop: async () => {} };
  return startPasses(intervalMs, async () => {
    try {
      const done = await maintainOnce(db);
      if (done.length) logger.debug({ tables: done }, 'embedded database maintenance done');
      options.onPass?.(done);
    } catch (error) {
      const { name, message } = error as Error;
      logger.warn({ err: { name, message } }, 'embedded database maintenance failed');
    }
  });
}
