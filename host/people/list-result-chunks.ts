/**
 * The results of one list run replaced range by range of person ids (one range on PostgreSQL, chunks of about
 * `chunkPeople` people on the embedded database): per range one statement finds the matching people, deletes the
 * results no longer matched and inserts the new ones. run-list.ts says what a reader sees meanwhile.
 */
import { setImmediate } from 'node:timers/promises';
import type { Queryable } from '../db/database.ts';
import { fromPeople, personIdRange } from '../directory/index.ts';
import type { SqlParams } from '../jsonapi/sql.ts';

const MIN_ID = '-9223372036854775808';
const MAX_ID = '9223372036854775807';

/** Inclusive person-id ranges of about `chunkPeople` people each, covering every id; one range when undefined. */
async function idRanges(
  q: Queryable,
  organizationId: string,
  chunkPeople: number | undefined,
): Promise<[string, string][]> {
  if (chunkPeople === undefined) return [[MIN_ID, MAX_ID]];
  const { lo, hi, people } = await personIdRange(q, organizationId);
  const chunks = Math.ceil(people / Math.max(1, chunkPeople));
  if (lo === null || hi === null || chunks <= 1) return [[MIN_ID, MAX_ID]];
  const width = Math.ceil((hi - lo + 1) / chunks);
  const ranges: [string, string][] = [];
  for (let i = 0; i < chunks; i++) {
    const from = i === 0 ? MIN_ID : String(lo + i * width);
    const to = i === chunks - 1 ? MAX_ID : String(lo + (i + 1) * width - 1);
    ranges.push([from, to]);
  }
  return ranges;
}

/** The digest check first when the list has one (no lock: one statement), then the full run if needed. */
/** The statement replacing the results of one person-id range; its last two parameters are the range's bounds. */
export function chunkStatement(
  input: { listId: string; now: Date },
  condition: string,
  params: SqlParams,
): { sql: string; params: SqlParams } {
  const listParam = `${params.add(input.listId)}::bigint`;
  const nowParam = `${params.add(input.now)}::timestamptz`;
  const from = `${params.add(MIN_ID)}::bigint`;
  const to = `${params.add(MAX_ID)}::bigint`;
  const sql = `
    WITH matched AS MATERIALIZED (SELECT p.id, p.status ${fromPeople('p')} WHERE p.id BETWEEN ${from} AND ${to} AND ${condition}),
    removed AS (
      DELETE FROM list_results r WHERE r.list_id = ${listParam} AND r.person_id BETWEEN ${from} AND ${to}
        AND r.person_id NOT IN (SELECT m.id FROM matched m)
      RETURNING 1),
    added AS (
      INSERT INTO list_results (list_id, person_id, created_at)
      SELECT ${listParam}, m.id, ${nowParam} FROM matched m
      WHERE NOT EXISTS (SELECT 1 FROM list_results r WHERE r.list_id = ${listParam} AND r.person_id BETWEEN ${from} AND ${to} AND r.person_id = m.id)
        -- No foreign key checks list_results (migration 080): a list deleted between chunks gets no results.
        AND EXISTS (SELECT 1 FROM lists l WHERE l.id = ${listParam})
      -- No ON CONFLICT (its speculative insertion wrote one more WAL record per row): nothing else inserts
      -- results, runs of one list wait for each other on PostgreSQL (the list row is locked) and PGlite runs
      -- one statement at a time, so NOT EXISTS saw every result that could conflict.
      RETURNING 1)
    SELECT (SELECT count(*)::int FROM matched) AS matched, (SELECT count(*)::int FROM matched WHERE status = 'inactive') AS inactive,
           (SELECT count(*)::int FROM added) AS added, (SELECT count(*)::int FROM removed) AS removed`;
  return { sql, params };
}

export interface RunTotals {
  matched: number;
  inactive: number;
  added: number;
  removed: number;
}

/** Runs the chunk statement over every person-id range of the organization, summing what each changed. */
export async function replaceResults(
  q: Queryable,
  input: { organizationId: string },
  chunk: { sql: string; params: SqlParams },
  chunkPeople: number | undefined,
): Promise<RunTotals> {
  const totals: RunTotals = { matched: 0, inactive: 0, added: 0, removed: 0 };
  const ranges = await idRanges(q, input.organizationId, chunkPeople);
  const chunked = ranges.length > 1;
  for (const [lo, hi] of ranges) {
    // PGlite answers within microtasks: without a turn of the event loop, nothing else would get in.
    if (chunked) await setImmediate();
    const values = [...chunk.params.values];
    values[values.length - 2] = lo;
    values[values.length - 1] = hi;
    const { rows } = await q.query<RunTotals>(chunk.sql, values);
    for (const key of Object.keys(totals) as (keyof RunTotals)[]) totals[key] += Number(rows[0]![key]);
  }
  if (chunked) await setImmediate();
  return totals;
}
