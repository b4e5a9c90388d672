/** Plain SQL migrations, applied in file order and recorded in `schema_migrations`. */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

/** `db/migrations/` of the package, also when this module runs from the built `dist/db/`. */
const MIGRATIONS_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './migrations/' : '../../db/migrations/', import.meta.url),
);
/** Serializes migrations of several host processes starting against one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_346_201;

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

/** Reads `NNN_name.sql` files of a folder in version order. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: file.slice(0, 3),
      name: file.slice(4, -4),
      sql: await readFile(dir + file, 'utf8'),
    })),
  );
}

/**
 * Applies the migrations not yet recorded; returns the versions applied (empty on a second start).
 * One transaction for the whole run: a failing migration leaves the database exactly as it was.
 */
export async function migrate(db: Database, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of all) {
      if (done.has(m.version)) continue;
      try {
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      } catch (error) {
        throw new MigrationError(m, error);
      }
      applied.push(m.version);
    }
    return applied;
  });
}

export class MigrationError extends Error {
  readonly code = 'migration_failed';
  constructor(
    readonly migration: Migration,
    cause: unknown,
  ) {
    super(
      `migration ${migration.version}_${migration.name} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
