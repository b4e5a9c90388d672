/**
 * P4 right after a bulk load: a database migrated and seeded by `seedDemo` with 10,000 people (what `addon-kit seed
 * --people 10000` does) and, at once — no autovacuum pass, no warm-up — the first fresh run of a List over them
 * (the P4 rules) ÷ the floor measured on the same just-seeded database: one `INSERT … SELECT` of the same ids into a
 * copy of list_results. A new database every round; the run and the floor go first in alternate rounds. Goal ≤ 2:
 * the load must leave statistics the run's plan can stand on.
 */
import { seedDemo } from '#host/demo/seed/demo.ts';
import { SqlParams } from '#host/jsonapi/sql.ts';
import { compileListCondition } from '#host/people/list-rule-sql.ts';
import { runList } from '#host/people/run-list.ts';
import { NOW, RULES } from './p4-list-run.ts';
import { databaseName, type Benchmark } from './runner/context.ts';
import { BENCH_PASSWORD, createBenchDatabase } from './runner/databases.ts';
import { progress } from './runner/rounds.ts';
import { compareRow } from './runner/table.ts';

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** One round on a new database: [fresh run ms, floor ms]. */
async function round(options: Parameters<Benchmark>[0]['options'], runFirst: boolean): Promise<[number, number]> {
  const bench = await createBenchDatabase(options, false);
  const db = await bench.open();
  try {
    await seedDemo(db, { people: options.listPeople, password: BENCH_PASSWORD });
    const organizationId = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'"))
      .rows[0]!.id;
    const listId = (
      await db.query<{ id: string }>(
        "INSERT INTO lists (organization_id, name, subset) VALUES ($1, 'Bench list', 'all') RETURNING id::text",
        [organizationId],
      )
    ).rows[0]!.id;
    for (const [position, rule] of RULES.entries())
      await db.query(
        'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
        [listId, rule.attribute, rule.operator, rule.value, position],
      );
    const params = new SqlParams([]);
    const condition = compileListCondition(
      RULES,
      { subset: 'all', includeInactive: false, returns: 'people', today: NOW.toISOString().slice(0, 10) },
      organizationId,
      params,
    );
    await db.exec('CREATE TABLE bench_results_floor (LIKE list_results INCLUDING ALL)');
    const values = [...params.values, listId, NOW];
    const floorSql = `INSERT INTO bench_results_floor (list_id, person_id, created_at)
      SELECT $${values.length - 1}::bigint, p.id, $${values.length}::timestamptz FROM people p WHERE ${condition}`;
    const fresh = async () => {
      const started = performance.now();
      const outcome = await runList(db, { organizationId, listId, now: NOW });
      if (!outcome.ok) throw outcome.error;
      return [performance.now() - started, outcome.matched] as const;
    };
    const floor = async () => {
      const started = performance.now();
      const { rowCount } = await db.query(floorSql, values);
      return [performance.now() - started, rowCount] as const;
    };
    const [run, insert] = runFirst ? [await fresh(), await floor()] : [null, await floor()];
    const [runMs, matched] = run ?? (await fresh());
    if (matched !== insert[1]) throw new Error(`the run matched ${matched} people, the floor inserted ${insert[1]}`);
    progress(`P4 after a bulk load: fresh ${ms(runMs)} · floor ${ms(insert[0])} (${matched} matched)`);
    return [runMs, insert[0]];
  } finally {
    await db.close();
    await bench.drop();
  }
}

export const runP4AfterLoad: Benchmark = async ({ options }) => {
  const fresh: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const [runMs, floorMs] = await round(options, i % 2 === 0);
    fresh.push(runMs);
    floor.push(floorMs);
  }
  return [
    compareRow({
      figure: `P4 first List run right after a bulk load ÷ the floor (${databaseName(options)}, ${options.listPeople} people seeded)`,
      a: fresh,
      b: floor,
      format: ms,
      goal: { on: 'ratio', op: '<=', value: 2, text: '≤ 2' },
    }),
  ];
};
