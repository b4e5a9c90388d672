/**
 * PostgreSQL reads a bare name in ORDER BY as an output column first: in `SELECT id::text … ORDER BY id` the rows
 * are sorted by the text ("10" before "9"), not by the number. No statement of the host orders by a bare `id` that
 * its select list turned into text; it names the table's column (`lists.id`). Read from the sources.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.ts';

const ROOT = join(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Statements (within one string literal) selecting `id::text` unaliased and ordering by a bare `id`. */
function textOrderedIds(text: string): string[] {
  const statement = /SELECT\s[^`']*?(?<![\w.])id::text\b(?!\s+AS\b)[^`']*?ORDER BY ([^`'\n]*)/g;
  return [...text.matchAll(statement)]
    .filter((m) => /(^|[\s,(])id\b(?!\s*::)/.test(m[1]!))
    .map((m) => m[0].replace(/\s+/g, ' ').slice(0, 120));
}

describe('ORDER BY a text-cast id', () => {
  it('finds the pattern and leaves qualified or aliased ids alone [pattern]', () => {
    expect(textOrderedIds("'SELECT id::text FROM lists WHERE x ORDER BY (total_people = 0), id LIMIT 1'")).toHaveLength(
      1,
    );
    expect(textOrderedIds("'SELECT id::text FROM lists ORDER BY refreshed_at, id ASC'")).toHaveLength(1);
    expect(textOrderedIds("'SELECT id::text FROM lists ORDER BY lists.id'")).toEqual([]);
    expect(textOrderedIds("'SELECT id::text AS list_id FROM lists ORDER BY id'")).toEqual([]);
    expect(textOrderedIds("'SELECT p.id::text FROM people p ORDER BY p.id'")).toEqual([]);
  });

  it('sorts as the test says PostgreSQL does [database]', async () => {
    const db = await createTestDatabase();
    try {
      const sql = 'SELECT id::text FROM (VALUES (2), (10), (9)) AS t(id) ORDER BY ';
      expect((await db.query<{ id: string }>(`${sql}id`)).rows.map((r) => r.id)).toEqual(['10', '2', '9']);
      expect((await db.query<{ id: string }>(`${sql}t.id`)).rows.map((r) => r.id)).toEqual(['2', '9', '10']);
    } finally {
      await db.close();
    }
  });

  it('is in no statement of the host, the SDK or the template', () => {
    const found = ['host', 'addon-sdk', 'integrator-template'].flatMap((dir) =>
      sources(join(ROOT, dir)).flatMap((file) =>
        textOrderedIds(readFileSync(file, 'utf8')).map((s) => `${relative(ROOT, file)}: ${s}`),
      ),
    );
    expect(found).toEqual([]);
  });
});
