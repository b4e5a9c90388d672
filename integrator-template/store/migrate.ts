/** Plain SQL migrations (`NNN_name.sql`), applied in file order in one transaction and recorded in `schema_migrations`. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from './sql.ts';

/** Serializes migrations of several integrator processes starting against one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_346_202;

/** One migration file. */
export interface Migration {
  version: string;
  name: string;
  sql: string;
}

/** Reads the `NNN_name.sql` files of a folder in version order. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: file.slice(0, 3),
      name: file.slice(4, -4),
      sql: await readFile(join(dir, file), 'utf8'),
    })),
  );
}

/** Applies the migrations not yet recorded; returns the versions applied. A failure leaves the database as it was. */
export async function migrate(db: Database, migrations: Migration[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      try {
        await tx.exec(m.sql);
      } catch (error) {
        throw new Error(`migration ${m.version}_${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
