/**
 * On PostgreSQL the database wrapper prepares a statement once it has run a few times (hot-statements.ts): the
 * connection then holds it as a named prepared statement, and it answers exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@addon-kit/host/internal/db/database.ts';
import { createEmptyPostgresDatabase } from '../../support/database.ts';

const url = await createEmptyPostgresDatabase();
let db: Database;
let plain: Database;
beforeAll(async () => {
  if (!url) return;
  db = await openDatabase({ databaseUrl: url });
  plain = await openDatabase({ databaseUrl: url, prepareStatements: false });
});
afterAll(async () => {
  await db?.close();
  await plain?.close();
});

const SQL = 'SELECT $1::int + 1 AS next, $2::text AS label';
const prepared = (q: { query: Database['query'] }) =>
  q.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE statement = $1', [SQL]);

describe.skipIf(!url)('prepared statements [PostgreSQL only: PGlite has no connections to prepare on]', () => {
  it('prepares a statement on the connection from its third run, with the same answers', async () => {
    const { answers, held } = await db.transaction(async (tx) => {
      const answers = [];
      for (let n = 0; n < 4; n++)
        answers.push((await tx.query<{ next: number; label: string }>(SQL, [n, `#${n}`])).rows);
      return { answers, held: (await prepared(tx)).rows };
    });
    expect(answers).toEqual([0, 1, 2, 3].map((n) => [{ next: n + 1, label: `#${n}` }]));
    expect(held).toEqual([{ statement: SQL }]);
  });

  it('prepares nothing when turned off (ADDON_KIT_DATABASE_PREPARE=off)', async () => {
    const held = await plain.transaction(async (tx) => {
      for (let n = 0; n < 4; n++) await tx.query(SQL, [n, 'x']);
      return (await prepared(tx)).rows;
    });
    expect(held).toEqual([]);
  });
});
