/**
 * Whether anything a proxied call is allowed on has changed, asked of PostgreSQL — where several host processes
 * share the database and a NOTIFY reaches the others only moments after its commit — in a way that sees every
 * commit before the call arrived, in every process at once.
 *
 * Each writing transaction of those tables leaves its transaction id in `proxy_call_changes` (migration 110's
 * trigger, beside 098's and 099's). A look runs one statement: the current snapshot, and whether any row is
 * visible now whose transaction was not yet visible in the previous look's snapshot — that is, whether anything
 * committed in between. Looks follow each other without gaps, so every commit is seen by exactly the first look
 * whose snapshot includes it.
 *
 * `settled()` resolves once a look that began after it was called has ended — so every change committed before
 * a call arrived has been seen (and the cache emptied) before the call may use a kept answer. Up to MAX_LOOKS
 * run at once; calls arriving beyond that share the next one.
 *
 * The hosts delete rows older than RETENTION; the deleting transaction writes its own row, so a process whose
 * previous look predates the deletion still sees a change. A process whose previous look is older than
 * `staleAfterMs` (no calls for a while) counts that as a change too.
 */
import type { Queryable } from '../../db/database.ts';

/** How long rows are kept: far longer than any gap between two looks of a process with calls. */
export const RETENTION = '10 minutes';

/**
 * Looks running at once at most (each holds a pooled connection for one short statement). One: a call arriving while
 * a look runs waits for the next, shared by every call that arrived meanwhile — under P1's load half the looks of
 * four at once (0.42 against 0.88 a call), less CPU in the host and the database, no slower answers
 * (bench/README.md, "third pass").
 */
export const MAX_LOOKS = 1;

/** How often a host deletes old rows. */
export const PURGE_INTERVAL_MS = 5 * 60_000;

/** The snapshot, and whether anything committed since `$1`'s snapshot (all in the statement's one snapshot). */
const LOOK_SQL = `SELECT pg_current_snapshot()::text AS snapshot,
  EXISTS (SELECT 1 FROM proxy_call_changes c
          WHERE c.xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(c.xid, $1::pg_snapshot)) AS changed`;

const START_SQL = 'SELECT pg_current_snapshot()::text AS snapshot';

/** Deletes old rows; when it deleted any, writes itself down as a change (what it removed is then covered). */
const PURGE_SQL = `WITH gone AS (DELETE FROM proxy_call_changes WHERE at < now() - interval '${RETENTION}' RETURNING 1)
INSERT INTO proxy_call_changes (xid) SELECT pg_current_xact_id() WHERE EXISTS (SELECT 1 FROM gone)
ON CONFLICT DO NOTHING`;

export interface ProxyCallChanges {
  /**
   * Resolves once a look begun after this call has ended (calling `onChange` first when it saw a change);
   * false when the look failed (then nothing kept may be used).
   */
  settled(): Promise<boolean>;
}

/**
 * Deletes rows older than RETENTION (on the embedded database too, where rows come only from connections other
 * than the host's, e.g. the CLI's while the host is stopped).
 */
export async function purgeProxyCallChanges(db: Queryable): Promise<void> {
  await db.query(PURGE_SQL);
}

/** Starts looking from now: `onChange` is called whenever a look finds a commit since the previous one. */
export async function watchProxyCallChanges(
  db: Queryable,
  options: { onChange: () => void; staleAfterMs: number; now?: () => number },
): Promise<ProxyCallChanges> {
  const now = options.now ?? Date.now;
  let last = { snapshot: '', at: now() };
  last.snapshot = (await db.query<{ snapshot: string }>(START_SQL)).rows[0]!.snapshot;

  async function look(): Promise<boolean> {
    const startedAt = now();
    try {
      const { rows } = await db.query<{ snapshot: string; changed: boolean }>(LOOK_SQL, [last.snapshot]);
      if (rows[0]!.changed || startedAt - last.at > options.staleAfterMs) options.onChange();
      last = { snapshot: rows[0]!.snapshot, at: startedAt };
      return true;
    } catch {
      // The next look starts from the same snapshot: nothing committed meanwhile is missed.
      options.onChange();
      return false;
    }
  }

  // A call waits for a look begun after it arrived: its own, started at once while fewer than MAX_LOOKS run (so it
  // waits one round trip), or else the next one, started as soon as a running look ends and shared by everyone who
  // waited meanwhile. Looks running side by side may end in any order: each reports what committed since the
  // snapshot it started from, and whichever ends sets the next start — intervals overlap but never leave a gap.
  let running = 0;
  let waiting: ((fresh: boolean) => void)[] = [];
  const begin = () => {
    running += 1;
    const answered = waiting;
    waiting = [];
    void look().then((fresh) => {
      running -= 1;
      for (const answer of answered) answer(fresh);
      if (waiting.length > 0) begin();
    });
  };
  return {
    settled() {
      return new Promise((resolve) => {
        waiting.push(resolve);
        if (running < MAX_LOOKS) begin();
      });
    },
  };
}
