/**
 * The integrator's own storage: PGlite in `<dataDir>/integrator`, or a schema of its own on a
 * PostgreSQL server, migrated from `integrator-template/migrations/`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, quoteIdent, type Database } from '../../host/db/database.ts';
import { loadMigrations, migrate } from '../../host/db/migrate.ts';

/** Folder of the integrator's plain SQL migrations. */
export const INTEGRATOR_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

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
    const schema = options.schema ?? 'integrator';
    // search_path names the schema, so it must exist before the pool's first query.
    const admin = await openDatabase({ databaseUrl: options.databaseUrl, maxConnections: 1 });
    try {
      await admin.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } finally {
      await admin.close();
    }
    db = await openDatabase({ databaseUrl: options.databaseUrl, schema });
  } else if (options.dataDir && options.dataDir !== 'memory://') {
    const dir = join(options.dataDir, 'integrator');
    await mkdir(dir, { recursive: true });
    db = await openDatabase({ dataDir: dir });
  } else {
    db = await openDatabase({ dataDir: 'memory://' });
  }
  await migrateIntegrator(db);
  return db;
}

/** Applies the integrator's migrations not yet recorded. */
export async function migrateIntegrator(db: Database): Promise<string[]> {
  return migrate(db, await loadMigrations(INTEGRATOR_MIGRATIONS_DIR));
}
