/**
 * Running a list: its results are recomputed inside the database — one INSERT … SELECT / DELETE
 * statement over `people` with the compiled rule condition, then one UPDATE of the list — so people
 * are never loaded into JavaScript, whatever their number.
 */
import type { Database } from '../db/database.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { compileListCondition, RuleCompileError, type RuleInput } from './list-rule-sql.ts';

/** Which list to run, and the moment of the run. */
export interface RunListInput {
  organizationId: string;
  listId: string;
  /** The moment of the run: refreshed_at, batch_completed_at, and the day ages are computed on. */
  now: Date;
}

/** Counts of a successful run, or the rule error of a failed one. */
export type RunListOutcome =
  | { ok: true; matched: number; added: number; removed: number; kept: boolean }
  | { ok: false; error: RuleCompileError };

/**
 * Recomputes the list's results. A list whose rules cannot be compiled is marked `failed` and
 * `invalid` (its previous results stay) and the error is returned.
 */
export async function runList(db: Database, input: RunListInput): Promise<RunListOutcome> {
  const { organizationId, listId, now } = input;
  const outcome = await db.transaction(async (tx): Promise<RunListOutcome> => {
    // One run of a list at a time; a concurrent run waits and then recomputes from fresh data.
    const { rows: lists } = await tx.query<{ subset: string; include_inactive: boolean; returns: string; return_original_if_none: boolean }>(
      'SELECT subset, include_inactive, returns, return_original_if_none FROM lists WHERE organization_id = $1 AND id = $2 FOR UPDATE',
      [organizationId, listId],
    );
    const list = lists[0];
    if (!list) throw new Error(`list ${listId} not found`);
    const { rows: rules } = await tx.query<RuleInput>('SELECT attribute, operator, value FROM list_rules WHERE list_id = $1 ORDER BY position, id', [listId]);

    const params = new SqlParams([listId, list.return_original_if_none]);
    let condition: string;
    try {
      condition = compileListCondition(rules, { subset: list.subset, includeInactive: list.include_inactive, returns: list.returns, today: now.toISOString().slice(0, 10) }, organizationId, params);
    } catch (error) {
      if (error instanceof RuleCompileError) return { ok: false, error };
      throw error;
    }
    // return_original_if_none ($2): when nobody matches, the previous results are kept as they are.
    const { rows } = await tx.query<{ matched: number; added: number; removed: number }>(
      `WITH matched AS MATERIALIZED (SELECT p.id FROM people p WHERE ${condition}),
       replace AS (SELECT NOT ($2::boolean AND NOT EXISTS (SELECT 1 FROM matched)) AS yes),
       removed AS (
         DELETE FROM list_results r WHERE r.list_id = $1::bigint AND (SELECT yes FROM replace)
           AND NOT EXISTS (SELECT 1 FROM matched m WHERE m.id = r.person_id)
         RETURNING 1),
       added AS (
         INSERT INTO list_results (list_id, person_id, created_at)
         SELECT $1::bigint, m.id, ${params.add(now)}::timestamptz FROM matched m WHERE (SELECT yes FROM replace)
         ON CONFLICT (list_id, person_id) DO NOTHING
         RETURNING 1)
       SELECT (SELECT count(*)::int FROM matched) AS matched, (SELECT count(*)::int FROM added) AS added, (SELECT count(*)::int FROM removed) AS removed`,
      params.values,
    );
    const counts = rows[0]!;
    await tx.query(
      `UPDATE lists SET
         total_people = (SELECT count(*)::int FROM list_results r WHERE r.list_id = lists.id),
         has_inactive_results = EXISTS (SELECT 1 FROM list_results r JOIN people p ON p.id = r.person_id WHERE r.list_id = lists.id AND p.status = 'inactive'),
         refreshed_at = $2, batch_completed_at = $2, status = 'complete', invalid = false
       WHERE id = $1`,
      [listId, now],
    );
    return { ok: true, matched: Number(counts.matched), added: Number(counts.added), removed: Number(counts.removed), kept: list.return_original_if_none && Number(counts.matched) === 0 };
  });
  if (!outcome.ok) {
    await db.query("UPDATE lists SET status = 'failed', invalid = true, batch_completed_at = $3 WHERE organization_id = $1 AND id = $2", [organizationId, listId, now]);
  }
  return outcome;
}
