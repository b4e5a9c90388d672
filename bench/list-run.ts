/**
 * Benchmark of a list run: 10,000 people and a 3-condition rule, timed next to a plain
 * `SELECT count(*)` over the same people (the baseline; the ratio says what the rules and the result
 * write cost on top of one scan). PGlite always; PostgreSQL too when DATABASE_URL is set (in a
 * throw-away schema that is dropped afterwards).
 *
 *   npx tsx bench/list-run.ts            (PEOPLE=50000 to change the size)
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openDatabase, quoteIdent, type Database } from '@addon-kit/host/internal/db/database.ts';
import { migrate } from '@addon-kit/host/internal/db/migrate.ts';
import { runList } from '@addon-kit/host/internal/people/run-list.ts';

const PEOPLE = Number(process.env.PEOPLE ?? 10_000);
const ROUNDS = 7;
const RULES = [
  ['membership', 'is', 'Member'],
  ['gender', 'is', 'F'],
  ['age', 'greater_than_or_equal', '30'],
] as const;

/** Deterministic people: attributes derived from the row number, inserted by one statement. */
async function seed(db: Database): Promise<{ organizationId: string; listId: string }> {
  const org = (await db.query<{ id: string }>("INSERT INTO organizations (name, slug) VALUES ('Bench', 'bench') RETURNING id::text")).rows[0]!.id;
  const campus = (await db.query<{ id: string }>("INSERT INTO campuses (organization_id, name) VALUES ($1, 'Main') RETURNING id::text", [org])).rows[0]!.id;
  await db.query(
    `INSERT INTO people (organization_id, first_name, last_name, email, status, membership, gender, birthdate, campus_id, created_at)
     SELECT $1, 'First' || i, 'Last' || (i % 97), 'p' || i || '@bench.test',
            CASE WHEN i % 10 = 0 THEN 'inactive' ELSE 'active' END,
            (ARRAY['Member', 'Regular Attender', 'Visitor', 'Participant'])[1 + i % 4],
            CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END,
            DATE '1940-01-01' + ((i * 7919) % 25000),
            $2::bigint, TIMESTAMPTZ '2024-01-01' + (i % 700) * interval '1 day'
     FROM generate_series(1, $3::int) AS i`,
    [org, campus, PEOPLE],
  );
  const list = (await db.query<{ id: string }>("INSERT INTO lists (organization_id, name, subset) VALUES ($1, 'Bench list', 'all') RETURNING id::text", [org])).rows[0]!.id;
  for (const [position, [attribute, operator, value]] of RULES.entries()) {
    await db.query('INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)', [list, attribute, operator, value, position]);
  }
  await db.exec('ANALYZE');
  return { organizationId: org, listId: list };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(fn: () => Promise<unknown>, before: () => Promise<unknown> = async () => {}): Promise<number> {
  await before();
  await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await before();
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function bench(label: string, db: Database): Promise<void> {
  await migrate(db);
  const { organizationId, listId } = await seed(db);
  const now = new Date('2026-01-01T00:00:00Z');
  let matched = 0;
  const run = async () => {
    const outcome = await runList(db, { organizationId, listId, now });
    if (!outcome.ok) throw outcome.error;
    matched = outcome.matched;
  };
  // Fresh: every result is inserted; again: the results are already there (the usual refresh).
  const freshMs = await time(run, () => db.query('DELETE FROM list_results WHERE list_id = $1', [listId]));
  const runMs = await time(run);
  const countMs = await time(() => db.query('SELECT count(*) FROM people WHERE organization_id = $1', [organizationId]));
  const total = (await db.query<{ total_people: number }>('SELECT total_people FROM lists WHERE id = $1', [listId])).rows[0]!.total_people;
  console.log(
    `${label.padEnd(10)} people=${PEOPLE} matched=${matched} total_people=${total}  count(*)=${countMs.toFixed(1)} ms  ` +
      `run fresh=${freshMs.toFixed(1)} ms (${(freshMs / countMs).toFixed(1)}x)  run again=${runMs.toFixed(1)} ms (${(runMs / countMs).toFixed(1)}x)`,
  );
}

async function main(): Promise<void> {
  console.log(`list run: ${RULES.map((r) => r.join(' ')).join(' AND ')}; median of ${ROUNDS} runs after a warm-up`);
  const pglite = await openDatabase({ dataDir: 'memory://' });
  try {
    await bench('PGlite', pglite);
  } finally {
    await pglite.close();
  }
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('PostgreSQL: skipped (set DATABASE_URL=postgres://… to include it)');
    return;
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  await admin.exec(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const pg = await openDatabase({ databaseUrl: url, schema });
  try {
    await bench('PostgreSQL', pg);
  } finally {
    await pg.close();
    await admin.exec(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
    await admin.close();
  }
}

await main();
