/**
 * The embedded back-end: PGlite in this process, on a data directory (locked against a second process) or in
 * memory; statements run again and again are prepared once for the process.
 */
import type { PGlite, Results, Transaction } from '@electric-sql/pglite';
import { createHotStatements } from './hot-statements.ts';
import { PARAMETER_TYPES_SQL, asOrdinaryError, executeStatement, prepareStatement } from './pglite-prepared.ts';
import type { Database, Queryable } from './queryable.ts';
import { assertStorableParameters } from './storable-text.ts';

export async function openPglite(
  dataDir: string | undefined,
  loadDataDir: Blob | undefined,
  prepare = true,
): Promise<Database & { pglite: PGlite }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const onDisk = dataDir !== undefined && dataDir !== 'memory://';
  // PGlite is single-process: a second process on the same directory would corrupt it.
  const releaseLock = onDisk ? await lockDataDir(dataDir) : async () => {};
  const pglite = new PGlite({
    ...(dataDir && dataDir !== 'memory://' ? { dataDir } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  await pglite.waitReady;
  // Statements run again and again are prepared once for the process (pglite-prepared.ts). `ready` holds the
  // names prepared; `preparing` the preparations under way, awaited only outside transactions (a transaction
  // holds PGlite for itself, so waiting in one for a PREPARE queued behind it would never end).
  // Literals are quoted for standard_conforming_strings (a backslash is an ordinary character): on by default.
  const conforming = (await pglite.query<{ on: string }>('SHOW standard_conforming_strings')).rows[0];
  const hot = prepare && Object.values(conforming ?? {})[0] === 'on' ? createHotStatements() : undefined;
  const ready = new Map<string, number[]>();
  const preparing = new Map<string, Promise<boolean>>();
  const preparedName = async (sql: string, inTransaction: boolean): Promise<string | undefined> => {
    const name = hot?.nameOf(sql);
    if (name === undefined || ready.has(name)) return name;
    if (inTransaction) return undefined;
    let done = preparing.get(name);
    if (!done) {
      done = (async () => {
        await pglite.query(prepareStatement(name, sql));
        const { rows } = await pglite.query<{ types: number[] }>(PARAMETER_TYPES_SQL, [name]);
        ready.set(name, rows[0]!.types);
        return true;
      })().catch(() => false); // a statement PREPARE cannot take keeps to the ordinary path
      preparing.set(name, done);
    }
    return (await done) ? name : undefined;
  };
  const wrap = (q: PGlite | Transaction, inTransaction: boolean): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      assertStorableParameters(params);
      const name = hot ? await preparedName(sql, inTransaction) : undefined;
      const execute =
        name === undefined ? undefined : executeStatement(name, params, ready.get(name)!, pglite.serializers);
      // EXECUTE goes by the simple protocol: one message instead of parse, describe, bind and execute.
      const r =
        execute === undefined
          ? await q.query<T>(sql, params as unknown[])
          : (
              (await q.exec(execute).catch((error: unknown) => {
                throw asOrdinaryError(error, sql, params);
              })) as [Results<T>]
            )[0];
      // PGlite reports affectedRows 0 for a SELECT; pg counts the rows returned. Match pg.
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const base = wrap(pglite, false);
  return {
    kind: 'pglite',
    pglite,
    ...base,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx, true))),
    async listen(channel, onNotify) {
      // One process owns a PGlite database, so nothing is ever missed.
      const unlisten = await pglite.listen(channel, onNotify);
      // Once the database is closed there is nothing left to stop listening to.
      return { active: true, close: async () => (pglite.closed ? undefined : unlisten()) };
    },
    async close() {
      await pglite.close();
      await releaseLock();
    },
  };
}

export class DataDirInUseError extends Error {
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by process ${pid} (a running addon-kit start?); stop it, or use PostgreSQL with --database-url`,
    );
  }
}

/** Takes `<dataDir>.lock` for this process; a lock left by a dead process is taken over. */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const { mkdir, readFile, unlink, writeFile } = await import('node:fs/promises');
  const path = await import('node:path');
  const file = `${path.resolve(dataDir)}.lock`;
  await mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return async () => {
        await unlink(file).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(await readFile(file, 'utf8').catch(() => '0'));
      if (pid && pid !== process.pid && isAlive(pid)) throw new DataDirInUseError(dataDir, pid);
      await unlink(file).catch(() => {});
    }
  }
  throw new DataDirInUseError(dataDir, 0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
