/**
 * The database wrapper prepares a statement once it has run a few times (hot-statements.ts): PostgreSQL once per
 * connection, PGlite once for the process (pglite-prepared.ts: `PREPARE` + `EXECUTE` with literals made by
 * PGlite's own serializers). A prepared statement answers exactly as the ordinary one, for every kind of value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Queryable } from '#host/db/database.ts';
import { createEmptyPostgresDatabase } from '../../support/database.ts';

const url = await createEmptyPostgresDatabase();
let db: Database;
let plain: Database;
beforeAll(async () => {
  db = await openDatabase(url ? { databaseUrl: url } : {});
  plain = await openDatabase(url ? { databaseUrl: url, prepareStatements: false } : { prepareStatements: false });
  // PGlite: two databases in memory; PostgreSQL: one database, two pools.
  for (const q of [db, plain])
    await q.exec(`CREATE TABLE IF NOT EXISTS kinds (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, t text, n int, b bigint, f float8, ok boolean,
      ts timestamptz, d date, tags text[], ids bigint[], doc jsonb, raw json)`);
});
afterAll(async () => {
  await db?.close();
  await plain?.close();
});

const SQL = 'SELECT $1::int + 1 AS next, $2::text AS label';
const prepared = (q: Queryable) =>
  q.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE statement LIKE $1', [`%${SQL}`]);

const INSERT = `INSERT INTO kinds (t, n, b, f, ok, ts, d, tags, ids, doc, raw)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  RETURNING t, n, b, f, ok, ts, d::text AS d, tags, ids, doc, raw`;

/** Values of every kind the host sends, with the characters a literal must survive. */
const ROWS: unknown[][] = [
  [
    'it\'s a \\ back\'slash "quote" — ünïcode ✓',
    41,
    9_007_199_254_740_000,
    1.5,
    true,
    new Date('2026-11-23T20:00:00.123Z'),
    '2026-11-23',
    ['a', 'b,c', 'd"e', 'f\\g', "h'i", ''],
    [1, 2, 3],
    { k: "v'1", nested: [1, { x: null }] },
    '{"raw": "as given"}',
  ],
  [null, null, null, null, false, null, null, [], null, { list: ['in', 'jsonb'] }, null],
  ['', 0, -1, -0.25, null, new Date(0), null, [null, 'x'], [], '"a JSON string"', '[1,2]'],
];

describe('prepared statements', () => {
  it('answer every kind of value exactly as the ordinary statement does, before and after preparing', async () => {
    const answers = async (q: Database) => {
      const out: unknown[] = [];
      for (let round = 0; round < 3; round++) for (const row of ROWS) out.push((await q.query(INSERT, row)).rows[0]);
      return out;
    };
    const expected = await answers(plain);
    expect(await answers(db)).toEqual(expected);
    expect(expected[0]).toMatchObject({ t: ROWS[0]![0], tags: ROWS[0]![7], doc: ROWS[0]![9], d: '2026-11-23' });
  });

  it('prepares a statement from its third run, inside transactions too, with the same answers', async () => {
    const { answers, held } = await db.transaction(async (tx) => {
      const answers = [];
      for (let n = 0; n < 4; n++)
        answers.push((await tx.query<{ next: number; label: string }>(SQL, [n, `#${n}`])).rows);
      return { answers, held: (await prepared(tx)).rows };
    });
    for (let n = 4; n < 6; n++) answers.push((await db.query<{ next: number; label: string }>(SQL, [n, `#${n}`])).rows);
    expect(answers).toEqual([0, 1, 2, 3, 4, 5].map((n) => [{ next: n + 1, label: `#${n}` }]));
    // PGlite prepares outside transactions only (the statement is prepared by the later runs).
    const all = db.kind === 'pglite' ? (await prepared(db)).rows : held;
    expect(all).toHaveLength(1);
  });

  it('reports a prepared statement’s error with its text and parameters, never the literals', async () => {
    const failing = 'SELECT $1::int AS n';
    type Failure = { query?: unknown; params?: unknown; code?: unknown };
    const errors: Failure[] = [];
    for (let n = 0; n < 5; n++)
      errors.push(
        await db.query(failing, [`x${n}`]).then(
          () => ({}),
          (e: unknown) => e as Failure,
        ),
      );
    for (const [n, error] of errors.entries()) {
      expect(error.code).toBe('22P02');
      if (db.kind === 'pglite') expect([error.query, error.params]).toEqual([failing, [`x${n}`]]);
    }
  });

  it('prepares nothing when turned off (ADDON_KIT_DATABASE_PREPARE=off)', async () => {
    const SQL_OFF = 'SELECT $1::int * 2 AS twice';
    for (let n = 0; n < 4; n++) await plain.query(SQL_OFF, [n]);
    const held = await plain.query('SELECT 1 FROM pg_prepared_statements WHERE statement LIKE $1', [`%${SQL_OFF}`]);
    expect(held.rows).toEqual([]);
  });
});
