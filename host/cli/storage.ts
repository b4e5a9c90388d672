/** Opens and migrates the database named by `--data-dir` / `--database-url` (or DATABASE_URL). */
import { join, resolve } from 'node:path';
import { hostConfigDefaults } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { CommandIo } from './io.ts';

export interface StorageFlags {
  'data-dir'?: string | undefined;
  'database-url'?: string | undefined;
}

export interface Storage {
  db: Database;
  dataDir: string;
  databaseUrl: string | undefined;
}

/** The data directory (absolute) and database URL the flags and environment select. */
export function storageLocation(
  flags: StorageFlags,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; databaseUrl: string | undefined } {
  const dataDir = resolve(flags['data-dir'] ?? env.ADDON_KIT_DATA_DIR ?? hostConfigDefaults.dataDir);
  const databaseUrl = flags['database-url'] ?? (env.DATABASE_URL || undefined);
  return { dataDir, databaseUrl };
}

/** Opens the database and applies pending migrations, reporting them. */
export async function openStorage(flags: StorageFlags, io: CommandIo): Promise<Storage> {
  const { dataDir, databaseUrl } = storageLocation(flags);
  const db = await openDatabase({
    databaseUrl,
    dataDir: join(dataDir, 'db'),
    schema: process.env.ADDON_KIT_DATABASE_SCHEMA || undefined,
    prepareStatements: process.env.ADDON_KIT_DATABASE_PREPARE !== 'off',
  });
  const applied = await migrate(db);
  if (applied.length) io.err(`addon-kit: applied ${applied.length} migration(s): ${applied.join(', ')}`);
  return { db, dataDir, databaseUrl };
}
