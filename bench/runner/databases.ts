/**
 * Throw-away databases for one benchmark: a PGlite data directory in a temporary folder (copied for a
 * second process, since PGlite is single-process), or a new database on the PostgreSQL server, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, quoteIdent, type Database } from '#host/db/database.ts';
import { migrate } from '#host/db/migrate.ts';
import { seedDemo } from '#host/demo/seed/demo.ts';
import type { BenchOptions } from './options.ts';

/** The demo logins' password in every bench database. */
export const BENCH_PASSWORD = 'bench-password-0123';

/** A database a benchmark owns. */
export interface BenchDatabase {
  kind: 'pglite' | 'postgres';
  /** `{dataDir}` or `{databaseUrl}`: how a process opens it. */
  location: { dataDir: string } | { databaseUrl: string };
  /** The same arguments for a bench server script. */
  args: string[];
  /** Opens it in this process (PGlite: only while no other process has it open). */
  open(): Promise<Database>;
  /** The same data for a second process: a copied directory (PGlite) or the same database (PostgreSQL). */
  copy(): Promise<BenchDatabase>;
  drop(): Promise<void>;
}

/** A PGlite data directory inside `parent`; the original's drop removes `parent`, a copy's only itself. */
function pgliteDatabase(dataDir: string, parent: string, original: boolean): BenchDatabase {
  return {
    kind: 'pglite',
    location: { dataDir },
    args: [`--data-dir=${dataDir}`],
    open: () => openDatabase({ dataDir }),
    async copy() {
      const target = join(parent, `copy-${randomBytes(3).toString('hex')}`);
      await cp(dataDir, target, { recursive: true });
      return pgliteDatabase(target, parent, false);
    },
    drop: () => rm(original ? parent : dataDir, { recursive: true, force: true }),
  };
}

/** A database URL with another database name. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** An empty PostgreSQL database `bench_<random>` on the server of `url`. */
export async function createPostgresDatabase(url: string): Promise<{ databaseUrl: string; drop(): Promise<void> }> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    await admin.exec(`CREATE DATABASE ${quoteIdent(name)}`);
  } finally {
    await admin.close();
  }
  return {
    databaseUrl: withDatabase(url, name),
    async drop() {
      const again = await openDatabase({ databaseUrl: url, maxConnections: 1 });
      try {
        await again.exec(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      } finally {
        await again.close();
      }
    },
  };
}

/** A migrated database, with the demo data unless `seed` is false. */
export async function createBenchDatabase(
  options: Pick<BenchOptions, 'database' | 'databaseUrl'>,
  seed = true,
): Promise<BenchDatabase> {
  let bench: BenchDatabase;
  if (options.database === 'postgres') {
    const created = await createPostgresDatabase(options.databaseUrl!);
    const { databaseUrl } = created;
    bench = {
      kind: 'postgres',
      location: { databaseUrl },
      args: [`--database-url=${databaseUrl}`],
      open: () => openDatabase({ databaseUrl }),
      copy: () => Promise.resolve(bench),
      drop: () => created.drop(),
    };
  } else {
    const parent = await mkdtemp(join(tmpdir(), 'addon-kit-bench-'));
    bench = pgliteDatabase(join(parent, 'db'), parent, true);
  }
  const db = await bench.open();
  try {
    await migrate(db);
    if (seed) await seedDemo(db, { password: BENCH_PASSWORD });
  } finally {
    await db.close();
  }
  return bench;
}

/** Session secret and encryption key for the host processes of one run (`ADDON_KIT_*` variables). */
export function benchSecrets(): Record<string, string> {
  return {
    ADDON_KIT_SESSION_SECRET: randomBytes(32).toString('base64url'),
    ADDON_KIT_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
}
