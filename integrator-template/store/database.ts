/**
 * The integrator's own storage: PGlite in `<dataDir>/integrator`, or a schema of its own on a
 * PostgreSQL server, migrated from `integrator-template/migrations/`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDataDirInBackground, dataDirCreated } from './data-dir-creation.ts';
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

const isPostgres = (options: OpenIntegratorDatabaseOptions) =>
  !!options.databaseUrl && /^postgres(ql)?:\/\//.test(options.databaseUrl);

/** The embedded database's directory, when the options name one on disk. */
function pgliteDir(options: OpenIntegratorDatabaseOptions): string | undefined {
  if (isPostgres(options) || !options.dataDir || options.dataDir === 'memory://') return undefined;
  return join(options.dataDir, 'integrator');
}

/**
 * Starts creating the integrator's embedded database on a worker thread when it does not exist yet (a first
 * start), so the caller can create its own meanwhile; `openIntegratorDatabase` with the same options waits for
 * it. Nothing to do on PostgreSQL, in memory or for an existing directory. Never rejects (`onError` hears a
 * failed creation; opening then creates the database itself).
 */
export function prepareIntegratorDatabase(
  options: OpenIntegratorDatabaseOptions,
  onError?: (message: string) => void,
): Promise<void> {
  const dir = pgliteDir(options);
  return dir === undefined ? Promise.resolve() : createDataDirInBackground(dir, onError);
}

/** Opens (creating when needed) and migrates the integrator's database. */
export async function openIntegratorDatabase(options: OpenIntegratorDatabaseOptions): Promise<Database> {
  let db: Database;
  const dir = pgliteDir(options);
  if (isPostgres(options)) {
    db = await openPostgres(options.databaseUrl!, options.schema ?? 'integrator');
  } else if (dir !== undefined) {
    await mkdir(dir, { recursive: true });
    await dataDirCreated(dir);
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
