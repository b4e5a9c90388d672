/**
 * The database a command works on: the one `--data-dir` / `--database-url` (or DATABASE_URL) select, opened and
 * migrated — or, when a running `addon-kit start` holds that embedded database, the running host's own (the command
 * is sent to it over its CLI channel, cli-channel.ts, and runs there). A command never creates a data directory
 * silently: only `start` and `seed` may; the others say where they looked.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hostConfigDefaults } from '../config.ts';
import { DataDirInUseError, openDatabase, type Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { UsageError } from './args.ts';
import { askRunningHost, cliChannelPath } from './cli-channel-client.ts';
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

/** The running host's storage while it runs a command sent over its CLI channel. */
const hostStorage = new AsyncLocalStorage<Storage>();

/** Runs `fn` with the host's own storage: what the CLI channel does with a command it received. */
export function runInHost<T>(storage: Storage, fn: () => Promise<T>): Promise<T> {
  return hostStorage.run(storage, fn);
}

/** What `withStorage` needs to know of the command it serves. */
export interface StorageCommand {
  /** Its name and arguments, sent as they are to a running host. */
  argv: string[];
  /** May it create a data directory that does not exist yet (`seed`)? */
  creates: boolean;
}

/**
 * Runs `fn` with the command's database and closes it after: inside the running host its storage; else the
 * selected one — unless a running `start` holds that embedded database, which then runs the whole command.
 */
export async function withStorage(
  command: StorageCommand,
  flags: StorageFlags,
  io: CommandIo,
  fn: (storage: Storage) => Promise<number>,
): Promise<number> {
  const inHost = hostStorage.getStore();
  if (inHost) return fn(inHost);
  const { dataDir, databaseUrl } = storageLocation(flags);
  if (!databaseUrl && !command.creates && !existsSync(join(dataDir, 'db')))
    throw new UsageError(
      `no addon-kit data directory at ${dataDir}: run this where you ran \`npm start\` (the host's folder), or pass ` +
        '--data-dir (or --database-url); `addon-kit start` and `addon-kit seed` create one',
    );
  let storage: Storage;
  try {
    storage = await openStorage(flags, io);
  } catch (error) {
    const channel = cliChannelPath(dataDir);
    if (!(error instanceof DataDirInUseError) || !existsSync(channel)) throw error;
    return askRunningHost(channel, command.argv, io);
  }
  try {
    return await fn(storage);
  } finally {
    await storage.db.close();
  }
}
