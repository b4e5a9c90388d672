import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { DEFAULT_PEOPLE, seedDemo } from '#host/demo/seed/demo.ts';
import { verifyPassword } from '#host/crypto/passwords.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { createEmptyPostgresDatabase, createTestDatabase } from '../../support/database.ts';

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

const count = async (sql: string, params: unknown[] = []) => (await db.query<{ n: number }>(sql, params)).rows[0]!.n;

describe('seedDemo()', () => {
  it('creates Demo Church with its logins, ~500 people, campuses, categories, lists with rules and notes', async () => {
    const demo = (
      await db.query<{ id: string; name: string }>("SELECT id::text, name FROM organizations WHERE slug = 'demo'")
    ).rows[0]!;
    expect(demo.name).toBe('Demo Church');
    expect(await count('SELECT count(*)::int AS n FROM people WHERE organization_id = $1', [demo.id])).toBe(
      DEFAULT_PEOPLE + 3,
    );
    expect(await count('SELECT count(*)::int AS n FROM campuses WHERE organization_id = $1', [demo.id])).toBe(3);
    expect(await count('SELECT count(*)::int AS n FROM note_categories WHERE organization_id = $1', [demo.id])).toBe(4);
    expect(await count('SELECT count(*)::int AS n FROM list_categories WHERE organization_id = $1', [demo.id])).toBe(3);
    expect(await count('SELECT count(*)::int AS n FROM lists WHERE organization_id = $1', [demo.id])).toBe(4);
    expect(
      await count(
        'SELECT count(*)::int AS n FROM list_rules r JOIN lists l ON l.id = r.list_id WHERE l.organization_id = $1',
        [demo.id],
      ),
    ).toBe(7);
    expect(await count('SELECT count(*)::int AS n FROM notes WHERE organization_id = $1', [demo.id])).toBe(300);
  });

  it('gives the logins their roles and a scrypt-hashed password', async () => {
    const { rows } = await db.query<{
      email: string;
      site_administrator: boolean;
      password_hash: string;
      roles: Record<string, string>;
    }>(
      `SELECT p.email, p.site_administrator, p.password_hash,
              (SELECT json_object_agg(r.product, r.role) FROM person_product_roles r WHERE r.person_id = p.id) AS roles
       FROM people p WHERE p.email IN ('admin@demo.test', 'editor@demo.test', 'member@demo.test', 'admin@other.test') ORDER BY p.email`,
    );
    expect(rows.map((r) => [r.email, r.site_administrator, r.roles])).toEqual([
      ['admin@demo.test', true, { people: 'manager', api: 'manager' }],
      ['admin@other.test', true, { people: 'manager', api: 'manager' }],
      ['editor@demo.test', false, { people: 'editor' }],
      ['member@demo.test', false, { people: 'viewer' }],
    ]);
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword(TEST_PASSWORD, rows[0]!.password_hash)).toBe(true);
    expect(await verifyPassword('wrong', rows[0]!.password_hash)).toBe(false);
  });

  it('is deterministic: a fresh database seeds exactly the same people, lists and notes [determinism]', async () => {
    const fingerprint = async (d: Database) =>
      (
        await d.query<{ people: string; notes: string; rules: string }>(
          `SELECT
             (SELECT md5(string_agg(concat_ws('|', first_name, last_name, email, status, membership, gender, birthdate::text, created_at::text), ',' ORDER BY email)) FROM people) AS people,
             (SELECT md5(string_agg(concat_ws('|', p.email, n.note, c.name, n.display_date::text), ',' ORDER BY n.display_date, p.email, n.note)) FROM notes n JOIN people p ON p.id = n.person_id JOIN note_categories c ON c.id = n.note_category_id) AS notes,
             (SELECT md5(string_agg(concat_ws('|', l.name, r.attribute, r.operator, r.position), ',' ORDER BY l.name, r.position)) FROM list_rules r JOIN lists l ON l.id = r.list_id) AS rules`,
        )
      ).rows[0]!;
    const { openDatabase } = await import('#host/db/database.ts');
    const { migrate } = await import('#host/db/migrate.ts');
    const fresh = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrate(fresh);
      await seedDemo(fresh, { password: 'another-password' });
      expect(await fingerprint(fresh)).toEqual(await fingerprint(db));
    } finally {
      await fresh.close();
    }
  });

  it('is idempotent, and tops people up to --people [second run]', async () => {
    const before = await count('SELECT count(*)::int AS n FROM people');
    const notes = await count('SELECT count(*)::int AS n FROM notes');
    expect(await seedDemo(db, { password: 'ignored-password' })).toEqual({ created: false, peopleAdded: 0 });
    expect(await count('SELECT count(*)::int AS n FROM people')).toBe(before);
    expect(await seedDemo(db, { people: DEFAULT_PEOPLE + 10, password: 'ignored-password' })).toEqual({
      created: false,
      peopleAdded: 10,
    });
    expect(await count('SELECT count(*)::int AS n FROM people')).toBe(before + 10);
    expect(await count('SELECT count(*)::int AS n FROM notes')).toBe(notes);
  });
});

describe('seedDemo() [several processes at once]', () => {
  it('creates the demo data once when seeds run concurrently on one empty database, and analyzes what it seeded', async () => {
    const { openDatabase } = await import('#host/db/database.ts');
    const { migrate } = await import('#host/db/migrate.ts');
    const url = await createEmptyPostgresDatabase();
    // Each seed on its own connection pool, as three hosts starting together have (PGlite: one process, one pool).
    const fresh = url
      ? await Promise.all([0, 1, 2].map(() => openDatabase({ databaseUrl: url })))
      : [await openDatabase({ dataDir: 'memory://' })];
    try {
      await migrate(fresh[0]!);
      const results = await Promise.all(fresh.map((d) => seedDemo(d, { password: 'concurrent-password' })));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const one = fresh[0]!;
      const counts = (
        await one.query<{ organizations: number; people: number; lists: number; notes: number }>(
          `SELECT (SELECT count(*)::int FROM organizations) AS organizations, (SELECT count(*)::int FROM people) AS people,
                  (SELECT count(*)::int FROM lists) AS lists, (SELECT count(*)::int FROM notes) AS notes`,
        )
      ).rows[0];
      expect(counts).toEqual({ organizations: 2, people: DEFAULT_PEOPLE + 3 + 20 + 1, lists: 8, notes: 310 });
      // Statistics gathered: the planner knows the tables' sizes without waiting for autovacuum.
      const { rows } = await one.query<{ relname: string; reltuples: number }>(
        `SELECT relname, reltuples::int AS reltuples FROM pg_class
         WHERE relname IN ('people', 'notes') AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
      );
      expect(rows).toEqual([
        { relname: 'notes', reltuples: 310 },
        { relname: 'people', reltuples: DEFAULT_PEOPLE + 3 + 20 + 1 },
      ]);
    } finally {
      await Promise.all(fresh.map((d) => d.close()));
    }
  });
});
