import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { loadMigrations, migrate, MigrationError } from '#host/db/migrate.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('migrate()', () => {
  it('records every migration and applies nothing on a second run', async () => {
    const files = await loadMigrations();
    const { rows } = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.version));
    expect(await migrate(db)).toEqual([]);
  });

  it('leaves the database as it was when a migration fails [rollback]', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(
      join(dir, '900_good.sql'),
      'CREATE TABLE migration_probe (id int); INSERT INTO migration_probe VALUES (1);',
    );
    await writeFile(
      join(dir, '901_bad.sql'),
      'ALTER TABLE migration_probe ADD COLUMN x int; SELECT * FROM no_such_table;',
    );
    const extra = await loadMigrations(`${dir}/`);
    const all = [...(await loadMigrations()), ...extra];
    const error = await migrate(db, all).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).migration.version).toBe('901');
    const probe = await db.query("SELECT to_regclass('migration_probe')::text AS t");
    expect(probe.rows[0]).toEqual({ t: null });
    const { rows } = await db.query<{ version: string }>(
      "SELECT version FROM schema_migrations WHERE version >= '900'",
    );
    expect(rows).toEqual([]);
  });

  it('ignores files that are not NNN_name.sql', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(dir, 'README.md'), '# no');
    await writeFile(join(dir, '12_short.sql'), 'SELECT 1;');
    await writeFile(join(dir, '002_b.sql'), 'SELECT 2;');
    await writeFile(join(dir, '001_a.sql'), 'SELECT 1;');
    expect((await loadMigrations(`${dir}/`)).map((m) => `${m.version}_${m.name}`)).toEqual(['001_a', '002_b']);
  });
});
