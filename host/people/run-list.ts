/**
 * Running a list: its results are recomputed inside the database, set-based — per range of person ids one
 * statement finds the matching people, deletes the results no longer matched and inserts the new ones
 * (diffed in SQL, never row by row in JavaScript) — then one UPDATE of the list. People are never loaded
 * into JavaScript, whatever their number.
 *
 * What a concurrent reader sees:
 * - PostgreSQL: the run is one transaction over the whole id range; readers (other connections) see the
 *   previous results and counts until it commits, then the new ones — never a mix. Concurrent runs of one
 *   list wait for each other (the list row is locked).
 * - PGlite (embedded): the database runs one statement at a time for the whole process, so a run in one
 *   transaction would hold every other request for its whole duration. The run is cut into chunks of about
 *   `CHUNK_PEOPLE` people (by id range), each chunk one statement committed on its own, with a yield to the
 *   event loop after it. A reader between chunks sees, for each person, either the previous or the new
 *   result (the ranges done so far are new), and the list's counts, `refreshed_at` and `status` of the
 *   previous run until the last step updates them. Each chunk recomputes its range from the data at that
 *   moment, so runs that overlap converge on the same results.
 *
 * Unchanged results: the list keeps a digest of its results (`results_digest`, migration 095), written by the
 * last step of every run from the results themselves and made unknown by any other change of them. A run of
 * a list whose digest is known first computes the digest of the people its rules match, with the list's
 * counts, in one statement that updates the list row only when the two digests are equal: then nothing else
 * is written (the results, their ids and `created_at` stay as they are). Otherwise, or when the digest is
 * unknown (a list never run, results changed since), the full diff runs; a list without a digest pays nothing
 * for the check.
 */
import { randomInt } from 'node:crypto';
import type { Database, Queryable } from '../db/database.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { compileListCondition, RuleCompileError, type RuleInput } from './list-rule-sql.ts';
import { fromPeople, joinPeople } from '../directory/index.ts';
import { chunkStatement, replaceResults, type RunTotals } from './list-result-chunks.ts';

/** People per chunk of a run on the embedded database (PostgreSQL runs the whole range at once). */
export const CHUNK_PEOPLE = 2500;

/** Which list to run, and the moment of the run. */
export interface RunListInput {
  organizationId: string;
  listId: string;
  /** The moment of the run: refreshed_at, batch_completed_at, and the day ages are computed on. */
  now: Date;
  /** People per chunk on the embedded database; default CHUNK_PEOPLE. */
  chunkPeople?: number;
  /**
   * Called when the run changed the results (people added or removed), in the transaction of the run's last step
   * (the list's new totals and status): what it writes (a webhook event) commits with the run's completion or not.
   */
  onChanged?: (q: Queryable) => Promise<void>;
}

/** Counts of a successful run, or the rule error of a failed one. */
export type RunListOutcome =
  { ok: true; matched: number; added: number; removed: number; kept: boolean } | { ok: false; error: RuleCompileError };

interface ListSettings {
  subset: string;
  include_inactive: boolean;
  returns: string;
  return_original_if_none: boolean;
  results_digest: string | null;
  rules: RuleInput[];
}

/** The list's settings and rules in one statement (PostgreSQL: optionally locking the list row). */
async function readList(q: Queryable, input: RunListInput, lock: boolean): Promise<ListSettings> {
  const { rows } = await q.query<ListSettings>(
    `SELECT l.subset, l.include_inactive, l.returns, l.return_original_if_none, l.results_digest,
            coalesce((SELECT json_agg(json_build_object('attribute', r.attribute, 'operator', r.operator, 'value', r.value)
                                      ORDER BY r.position, r.id)
                      FROM list_rules r WHERE r.list_id = l.id), '[]'::json) AS rules
     FROM lists l WHERE l.organization_id = $1 AND l.id = $2${lock ? ' FOR UPDATE OF l' : ''}`,
    [input.organizationId, input.listId],
  );
  const list = rows[0];
  if (!list) throw new Error(`list ${input.listId} not found`);
  return list;
}

/** The list's rules as one condition over `people p`, its values added to `params`. */
function compile(list: ListSettings, input: RunListInput, params: SqlParams): string {
  return compileListCondition(
    list.rules,
    {
      subset: list.subset,
      includeInactive: list.include_inactive,
      returns: list.returns,
      today: input.now.toISOString().slice(0, 10),
    },
    input.organizationId,
    params,
  );
}

/**
 * The digest of a set of person ids (`column` over the aggregated rows) as results_digest holds it:
 * `seed:count:x:y`, x and y the XOR of a 64-bit hash of every id under the seed and under its complement.
 * Order-free, so no sort (a sorted md5 cost about as much as the bare SELECT). Two different sets of one size
 * give one digest with a chance of about 2^-128; the seed, drawn afresh by every run that writes the digest
 * and never shown outside the database, keeps anyone from choosing people whose hashes cancel out.
 */
const digestOf = (column: string, seed: string) =>
  `${seed}::text || ':' || count(*) || ':' || coalesce(bit_xor(hashint8extended(${column}, ${seed})), 0)
     || ':' || coalesce(bit_xor(hashint8extended(${column}, ~${seed})), 0)`;

/** A new seed for the digest. */
const newSeed = () => String(randomInt(0, 2 ** 48 - 1));

/**
 * When the people the rules match are exactly the stored results (equal digests), one statement updates the
 * list row (counts, refreshed_at, status) and nothing else; returns the number matched, or undefined when the
 * results differ (nothing written).
 */
async function updateIfUnchanged(
  q: Queryable,
  input: RunListInput,
  condition: string,
  params: SqlParams,
  storedDigest: string,
): Promise<number | undefined> {
  const values = [...params.values, input.listId, input.now, storedDigest.slice(0, storedDigest.indexOf(':'))];
  const list = `$${values.length - 2}::bigint`;
  const now = `$${values.length - 1}::timestamptz`;
  const seed = `$${values.length}::bigint`;
  const { rows } = await q.query<{ matched: number }>(
    `UPDATE lists SET total_people = m.matched, has_inactive_results = m.inactive > 0,
            refreshed_at = ${now}, batch_completed_at = ${now}, status = 'complete', invalid = false
     FROM (SELECT count(*)::int AS matched, count(*) FILTER (WHERE p.status = 'inactive')::int AS inactive, ${digestOf('p.id', seed)} AS digest
           ${fromPeople('p')} WHERE ${condition}) m
     WHERE lists.id = ${list} AND lists.results_digest = m.digest
     RETURNING m.matched`,
    values,
  );
  return rows[0]?.matched;
}

/**
 * Recomputes the list's results. A list whose rules cannot be compiled is marked `failed` and
 * `invalid` (its previous results stay) and the error is returned.
 */
export async function runList(db: Database, input: RunListInput): Promise<RunListOutcome> {
  const outcome = await unchangedOrRecompute(db, input);
  if (!outcome.ok) {
    await db.query(
      "UPDATE lists SET status = 'failed', invalid = true, batch_completed_at = $3 WHERE organization_id = $1 AND id = $2",
      [input.organizationId, input.listId, input.now],
    );
  }
  return outcome;
}

async function unchangedOrRecompute(db: Database, input: RunListInput): Promise<RunListOutcome> {
  const list = await readList(db, input, false);
  const params = new SqlParams();
  let condition: string;
  try {
    condition = compile(list, input, params);
  } catch (error) {
    if (error instanceof RuleCompileError) return { ok: false, error };
    throw error;
  }
  if (list.results_digest !== null) {
    const matched = await updateIfUnchanged(db, input, condition, params, list.results_digest);
    if (matched !== undefined) return { ok: true, matched, added: 0, removed: 0, kept: false };
  }
  if (db.kind !== 'pglite') {
    // PostgreSQL: one run of a list at a time; a concurrent run waits and then recomputes from fresh data.
    return db.transaction(async (tx) => recompute(tx, input, await readList(tx, input, true), undefined));
  }
  return recompute(db, input, list, input.chunkPeople ?? CHUNK_PEOPLE);
}

/** Its steps: compile the rules, keep the results when nobody matches and the list asks so, replace them range by range, complete. */
async function recompute(
  q: Queryable,
  input: RunListInput,
  list: ListSettings,
  chunkPeople: number | undefined,
): Promise<RunListOutcome> {
  const params = new SqlParams();
  let condition: string;
  try {
    condition = compile(list, input, params);
  } catch (error) {
    if (error instanceof RuleCompileError) return { ok: false, error };
    throw error;
  }
  if (list.return_original_if_none && (await keptOriginal(q, input, condition, params)))
    return { ok: true, matched: 0, added: 0, removed: 0, kept: true };
  // Embedded database: a run that stops between chunks must leave the digest unknown (the last step writes it).
  if (chunkPeople !== undefined && list.results_digest !== null) {
    await q.query('UPDATE lists SET results_digest = NULL WHERE id = $1', [input.listId]);
  }
  const totals = await replaceResults(q, input, chunkStatement(input, condition, params), chunkPeople);
  await completeRun(q, input, totals);
  return { ok: true, matched: totals.matched, added: totals.added, removed: totals.removed, kept: false };
}

/** return_original_if_none: when nobody matches, the previous results are kept as they are (true then). */
async function keptOriginal(q: Queryable, input: RunListInput, condition: string, params: SqlParams): Promise<boolean> {
  const { rows } = await q.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 ${fromPeople('p')} WHERE ${condition}) AS any`,
    [...params.values],
  );
  if (rows[0]!.any) return false;
  await q.query(
    `UPDATE lists SET
       total_people = (SELECT count(*)::int FROM list_results r WHERE r.list_id = lists.id),
       has_inactive_results = EXISTS (SELECT 1 FROM list_results r ${joinPeople('p', 'r.person_id')} WHERE r.list_id = lists.id AND p.status = 'inactive'),
       refreshed_at = $2, batch_completed_at = $2, status = 'complete', invalid = false
     WHERE id = $1`,
    [input.listId, input.now],
  );
  return true;
}

/** The list's totals, digest and status after a run, and `onChanged` when the results changed. */
async function completeRun(q: Queryable, input: RunListInput, totals: RunTotals): Promise<void> {
  // The results are now exactly the matched people: whether any is inactive is known without a join. The
  // digest is of the results as they are at this step (a person deleted meanwhile took their result along).
  const complete = async (step: Queryable) => {
    await step.query(
      `UPDATE lists SET total_people = r.total, results_digest = r.digest,
         has_inactive_results = $3, refreshed_at = $2, batch_completed_at = $2, status = 'complete', invalid = false
       FROM (SELECT count(*)::int AS total, ${digestOf('r.person_id', '$4::bigint')} AS digest FROM list_results r WHERE r.list_id = $1) r
       WHERE id = $1`,
      [input.listId, input.now, totals.inactive > 0, newSeed()],
    );
    if (input.onChanged && totals.added + totals.removed > 0) await input.onChanged(step);
  };
  // PostgreSQL runs in one transaction already; the embedded database's chunks commit one by one, so its last step
  // and what onChanged writes get a transaction of their own.
  const needsTransaction = input.onChanged && totals.added + totals.removed > 0 && 'transaction' in q;
  if (needsTransaction) await (q as Database).transaction(complete);
  else await complete(q);
}
