/**
 * The integrator's own storage: PGlite in `<dataDir>/integrator`, or a schema of its own on a
 * PostgreSQL server, migrated from `integrator-template/migrations/`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMigrations, migrate } from './migrate.ts';
import { openPglite, openPostgres, type Database } from './sql.ts';

export type { Database, Queryable, QueryResult } from './sql.ts';

/** Folder of the integrator's plain SQL migrations (the package's `migrations/`, also when running from `dist/`). */
export const INTEGRATOR_MIGRATIONS_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../migrations/' : '../../migrations/', import.meta.url),
);

/** Where the integrator keeps its data. */
export interface OpenIntegratorDatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise PGlite. */
  databaseUrl?: string | undefined;
  /** PostgreSQL schema, created when missing. */
  schema?: string | undefined;
  /** Parent data directory (`memory://` or undefined keeps PGlite in memory). */
  dataDir?: string | undefined;
}

/** Opens (creating when needed) and migrates the integrator's database. */
export async function openIntegratorDatabase(options: OpenIntegratorDatabaseOptions): Promise<Database> {
  let db: Database;
  if (options.databaseUrl && /^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    db = await openPostgres(options.databaseUrl, options.schema ?? 'integrator');
  } else if (options.dataDir && options.dataDir !== 'memory://') {
    const dir = join(options.dataDir, 'integrator');
    await mkdir(dir, { recursive: true });
    db = await openPglite(dir);
  } else {
    db = await openPglite('memory://');
  }
  await migrateIntegrator(db);
  return db;
}

/** Applies the integrator's migrations not yet recorded. */
export async function migrateIntegrator(db: Database): Promise<string[]> {
  return migrate(db, await loadMigrations(INTEGRATOR_MIGRATIONS_DIR));
}
