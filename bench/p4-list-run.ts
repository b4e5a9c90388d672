/**
 * P4: `runList` (what `POST /people/v2/lists/{id}/run` does) over 10,000 people with three rules that match
 * most of them, ÷ the bare `SELECT` of the matching ids under the same rules (compileListCondition) — fresh
 * (no results yet: every row inserted) and again (the results already there, the usual refresh). Goals ≤ 2 and
 * ≤ 1.5. A third row: the longest wait of a concurrent `SELECT 1` during a fresh run ÷ that run's time — the run
 * must not block the (embedded) database for its whole duration; goal ≤ 0.5.
 * Also printed: the floor of any design that keeps one row per result — one `INSERT … SELECT` of the matching
 * ids into a copy of list_results (its identity, primary key and unique index; no triggers), cleared by a DELETE
 * as a fresh run's results are — ÷ the bare SELECT, and the fresh run ÷ that floor; on PGlite, the fresh run in
 * one chunk (as if the blocking goal did not hold) ÷ the bare SELECT.
 */
import type { Database } from '#host/db/database.ts';
import { SqlParams } from '#host/jsonapi/sql.ts';
import { compileListCondition, type RuleInput } from '#host/people/list-rule-sql.ts';
import { runList } from '#host/people/run-list.ts';
import { databaseName, type Benchmark } from './runner/context.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { interleave } from './runner/rounds.ts';
import { compareRow, printedRow } from './runner/table.ts';

/** The List's rules: most of the 10,000 people match them. */
export const RULES: RuleInput[] = [
  { attribute: 'membership', operator: 'is_not', value: 'Visitor' },
  { attribute: 'age', operator: 'greater_than_or_equal', value: '18' },
  { attribute: 'email', operator: 'is_not_blank', value: '' },
];
/** The runs' clock (ages are counted from it). */
export const NOW = new Date('2026-01-01T00:00:00Z');

/** Deterministic people (attributes derived from the row number) and one List with RULES, inserted by a few statements. */
async function seed(db: Database, people: number): Promise<{ organizationId: string; listId: string }> {
  const org = (
    await db.query<{ id: string }>(
      "INSERT INTO organizations (name, slug) VALUES ('Bench', 'bench') RETURNING id::text",
    )
  ).rows[0]!.id;
  const campus = (
    await db.query<{ id: string }>(
      "INSERT INTO campuses (organization_id, name) VALUES ($1, 'Main') RETURNING id::text",
      [org],
    )
  ).rows[0]!.id;
  await db.query(
    `INSERT INTO people (organization_id, first_name, last_name, email, status, membership, gender, birthdate, campus_id, created_at)
     SELECT $1, 'First' || i, 'Last' || (i % 97), 'p' || i || '@bench.test',
            CASE WHEN i % 10 = 0 THEN 'inactive' ELSE 'active' END,
            (ARRAY['Member', 'Regular Attender', 'Visitor', 'Participant'])[1 + i % 4],
            CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END,
            DATE '1940-01-01' + ((i * 7919) % 25000),
            $2::bigint, TIMESTAMPTZ '2024-01-01' + (i % 700) * interval '1 day'
     FROM generate_series(1, $3::int) AS i`,
    [org, campus, people],
  );
  const list = (
    await db.query<{ id: string }>(
      "INSERT INTO lists (organization_id, name, subset) VALUES ($1, 'Bench list', 'all') RETURNING id::text",
      [org],
    )
  ).rows[0]!.id;
  for (const [position, rule] of RULES.entries()) {
    await db.query(
      'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
      [list, rule.attribute, rule.operator, rule.value, position],
    );
  }
  await db.exec('ANALYZE');
  return { organizationId: org, listId: list };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export const runP4: Benchmark = async ({ options }) => {
  const bench = await createBenchDatabase(options, false);
  const db = await bench.open();
  try {
    const { organizationId, listId } = await seed(db, options.listPeople);
    const { rows: lists } = await db.query<{ subset: string; include_inactive: boolean; returns: string }>(
      'SELECT subset, include_inactive, returns FROM lists WHERE id = $1',
      [listId],
    );
    const list = lists[0]!;
    const params = new SqlParams([]);
    const condition = compileListCondition(
      RULES,
      {
        subset: list.subset,
        includeInactive: list.include_inactive,
        returns: list.returns,
        today: NOW.toISOString().slice(0, 10),
      },
      organizationId,
      params,
    );
    await db.exec('CREATE TABLE bench_results_floor (LIKE list_results INCLUDING ALL)');
    const floorValues = [...params.values, listId, NOW];
    const floorSql = `INSERT INTO bench_results_floor (list_id, person_id, created_at)
      SELECT $${floorValues.length - 1}::bigint, p.id, $${floorValues.length}::timestamptz FROM people p WHERE ${condition}`;
    let matched = 0;
    const run = async (chunkPeople?: number) => {
      const outcome = await runList(db, { organizationId, listId, now: NOW, chunkPeople });
      if (!outcome.ok) throw outcome.error;
      matched = outcome.matched;
    };
    // PGlite only (PostgreSQL runs the whole range at once): the same run in one chunk, blocking the database
    // for its whole duration — what the chunks, there for the blocking goal, cost the fresh run.
    const chunked = db.kind === 'pglite';
    const runWhole = () => run(Number.MAX_SAFE_INTEGER);
    const clear = () => db.query('DELETE FROM list_results WHERE list_id = $1', [listId]);
    const select = async () => {
      const { rows } = await db.query<{ id: string }>(`SELECT p.id FROM people p WHERE ${condition}`, params.values);
      if (rows.length !== matched && matched > 0)
        throw new Error(`the bare SELECT found ${rows.length} people, the run ${matched}`);
    };
    const clearFloor = () => db.query('DELETE FROM bench_results_floor');
    const floor = async () => {
      const { rowCount } = await db.query(floorSql, floorValues);
      if (rowCount !== matched) throw new Error(`the floor inserted ${rowCount} results, the run ${matched}`);
    };
    /**
     * A fresh run with a probe beside it, as another request would be: every 1 ms timer it sends `SELECT 1`.
     * Its wait counts from the timer's due time, so a blocked event loop (PGlite runs each statement on the
     * main thread) is measured as well as a query queued behind the run. Returns [longest wait, run time].
     */
    const probed = async (): Promise<[number, number]> => {
      await clear();
      let running = true;
      let longest = 0;
      const probe = (async () => {
        while (running) {
          const due = performance.now() + 1;
          await new Promise((resolve) => setTimeout(resolve, 1));
          await db.query('SELECT 1');
          longest = Math.max(longest, performance.now() - due);
        }
      })();
      const runMs = await timed(async () => {
        await run();
        running = false;
      });
      await probe;
      return [longest, runMs];
    };

    // Warm-up: plans cached, pages in memory, as on a running host.
    await clear();
    await run();
    await run();
    await select();
    await clearFloor();
    await floor();
    const steps = [
      async () => {
        await clear();
        return timed(() => run());
      },
      () => timed(() => run()),
      () => timed(select),
      async () => {
        await clearFloor();
        return timed(floor);
      },
      ...(chunked
        ? [
            async () => {
              await clear();
              return timed(runWhole);
            },
          ]
        : []),
    ];
    const label = `P4 (${databaseName(options)}, ${options.listPeople} people)`;
    const [fresh, again, bare, inserted, whole] = await interleave(
      label,
      options.rounds,
      steps,
      ([f, a, s, i, w]) =>
        `fresh ${ms(f!)} · again ${ms(a!)} · select ${ms(s!)} · floor ${ms(i!)}` +
        (w === undefined ? '' : ` · fresh in one chunk ${ms(w)}`),
    );
    const stalls = await interleave(
      `${label} probe`,
      options.rounds,
      [probed],
      ([pair]) => `longest wait ${ms(pair![0])} of a ${ms(pair![1])} run`,
    );
    const waits = stalls[0]!.map(([wait]) => wait);
    const runs = stalls[0]!.map(([, runMs]) => runMs);
    const name = `${databaseName(options)}, ${options.listPeople} people, ${matched} matched`;
    return [
      compareRow({
        figure: `P4 List run fresh ÷ bare SELECT (${name})`,
        a: fresh!,
        b: bare!,
        format: ms,
        goal: { on: 'ratio', op: '<=', value: 2, text: '≤ 2' },
      }),
      compareRow({
        figure: `P4 List run again ÷ bare SELECT (${name})`,
        a: again!,
        b: bare!,
        format: ms,
        goal: { on: 'ratio', op: '<=', value: 1.5, text: '≤ 1.5' },
      }),
      printedRow({
        figure: `P4 floor: INSERT … SELECT of the matching ids into a copy of list_results ÷ bare SELECT (${databaseName(options)})`,
        a: inserted!,
        b: bare!,
        format: ms,
      }),
      printedRow({
        figure: `P4 List run fresh ÷ that floor (${databaseName(options)})`,
        a: fresh!,
        b: inserted!,
        format: ms,
      }),
      ...(whole
        ? [
            printedRow({
              figure: `P4 List run fresh in one chunk (blocking the database throughout) ÷ bare SELECT (${databaseName(options)})`,
              a: whole,
              b: bare!,
              format: ms,
            }),
          ]
        : []),
      compareRow({
        figure: `P4 longest concurrent query wait ÷ fresh run (${databaseName(options)})`,
        a: waits,
        b: runs,
        format: ms,
        goal: { on: 'ratio', op: '<=', value: 0.5, text: '≤ 0.5 (1 = blocked for the whole run)' },
      }),
    ];
  } finally {
    await db.close();
    await bench.drop();
  }
};
