/**
 * One storage interface over two back-ends speaking the same SQL dialect:
 * PGlite (embedded, default — a data directory or memory) and PostgreSQL (through `pg`).
 */
import type { PGlite, Results, Transaction } from '@electric-sql/pglite';
import type { Pool, PoolClient } from 'pg';
import { createHotStatements } from './hot-statements.ts';
import { PARAMETER_TYPES_SQL, asOrdinaryError, executeStatement, prepareStatement } from './pglite-prepared.ts';
import { assertStorableParameters } from './storable-text.ts';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  /** One statement with `$1…$n` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A LISTEN on a channel: `active` is false while notifications may be missed (PostgreSQL connection lost, reconnecting). */
export interface Subscription {
  readonly active: boolean;
  close(): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel`, from any process on this database;
   * `onGap` when notifications may have been missed (a reconnect follows). Optional: a database opened
   * by another package's opener (the template integrator's) has none.
   */
  listen?(channel: string, onNotify: (payload: string) => void, onGap: () => void): Promise<Subscription>;
  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** PostgreSQL: the pool's connections (open, idle) and the queries waiting for one (metrics). */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

/** A connection pool's state at one moment. */
export interface PoolStats {
  /** Connections open, in use or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface OpenDatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` (or undefined) keeps it in memory. */
  dataDir?: string | undefined;
  /** PGlite: start from a dumped data directory (tarball) instead of an empty one. */
  loadDataDir?: Blob | undefined;
  /** PostgreSQL: the schema every connection uses (isolates test runs and tenants of one server). */
  schema?: string | undefined;
  /** PostgreSQL pool size. */
  maxConnections?: number | undefined;
  /**
   * Prepare statements that run again and again: PostgreSQL once per connection, PGlite once for the process
   * (default true; false behind a connection pooler that cannot keep prepared statements, e.g. PgBouncer before
   * 1.21 in transaction mode).
   */
  prepareStatements?: boolean | undefined;
}

/** Opens the configured database; PostgreSQL when `databaseUrl` is a postgres URL, PGlite otherwise. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl && /^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    return openPostgres(options.databaseUrl, options.schema, options.maxConnections, options.prepareStatements);
  }
  return openPglite(options.dataDir, options.loadDataDir, options.prepareStatements);
}

async function openPglite(
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

async function openPostgres(
  url: string,
  schema: string | undefined,
  max = 10,
  prepare = true,
): Promise<Database & { pool: Pool }> {
  const { default: pg } = await import('pg');
  // int8 (bigint, count(*)) as JS numbers: ids and counts here stay far below 2^53.
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
  });
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', () => {});
  if (schema) {
    // search_path names it on every connection; make sure it exists (outside the pool's setting).
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } finally {
      await setup.end();
    }
  }
  // Statements run again and again are prepared once per connection (hot-statements.ts).
  const hot = prepare ? createHotStatements() : undefined;
  const wrap = (q: Pool | PoolClient): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      assertStorableParameters(params);
      const name = hot?.nameOf(sql);
      const r = await (name === undefined
        ? q.query(sql, params as unknown[])
        : q.query({ name, text: sql, values: params as unknown[] }));
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  const base = wrap(pool);
  return {
    kind: 'postgres',
    pool,
    // A statement outside a transaction is sent again when the server says its connection was gone.
    query: (sql, params) => retryOnDeadConnection(() => base.query(sql, params), max + 1),
    exec: (sql) => retryOnDeadConnection(() => base.exec(sql), max + 1),
    async transaction(fn) {
      const client = await retryOnDeadConnection(async () => {
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          return c;
        } catch (error) {
          c.release(error as Error);
          throw error;
        }
      }, max + 1);
      try {
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        const dead =
          isDeadConnection(error) ||
          (await client.query('ROLLBACK').then(
            () => false,
            () => true,
          ));
        // A connection that failed is destroyed, not returned to the pool.
        client.release(dead ? (error as Error) : undefined);
        throw error;
      }
    },
    listen: (channel, onNotify, onGap) => listenPostgres(pg, url, schema, channel, onNotify, onGap),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/** LISTEN on a connection of its own (a pooled one would be returned to the pool), reconnecting after a loss. */
async function listenPostgres(
  pg: typeof import('pg').default,
  url: string,
  schema: string | undefined,
  channel: string,
  onNotify: (payload: string) => void,
  onGap: () => void,
): Promise<Subscription> {
  let client: import('pg').Client | undefined;
  let active = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const c = new pg.Client({
      connectionString: url,
      ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
    });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    await c.connect();
    await c.query(`LISTEN ${quoteIdent(channel)}`);
    client = c;
    active = true;
  };
  const lost = (c: import('pg').Client) => {
    if (client !== c) return;
    client = undefined;
    active = false;
    onGap();
    c.end().catch(() => {});
    if (!closed) scheduleRetry();
  };
  const scheduleRetry = () => {
    retry = setTimeout(() => {
      // Whatever changed while nobody listened is unknown: tell the listener again once we listen.
      connect().then(onGap, scheduleRetry);
    }, 1000);
    retry.unref();
  };
  await connect();
  return {
    get active() {
      return active;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      active = false;
      await c?.end();
    },
  };
}

/**
 * SQLSTATEs of a server that ended the connection (pg_terminate_backend, a restart): the statement was
 * not committed, so running it again on another connection is safe.
 */
const CONNECTION_ENDED = new Set(['57P01', '57P02', '57P03']);

/** Whether an error says the connection (not the statement) failed before anything was committed. */
export function isDeadConnection(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string' && CONNECTION_ENDED.has(e.code)) return true;
  // pg's own words for a client whose socket was already closed when the statement was to be sent.
  return typeof e?.message === 'string' && /not queryable/.test(e.message);
}

/**
 * Runs `fn` again while the pooled connection it used turned out to be dead: a connection the server
 * terminated while idle in the pool fails the next statement sent on it, and pg only then removes it
 * from the pool; every idle connection may be dead, so up to one more try than the pool holds.
 */
async function retryOnDeadConnection<T>(fn: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isDeadConnection(error)) throw error;
    }
  }
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

/** Quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
