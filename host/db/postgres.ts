/**
 * The PostgreSQL back-end (through `pg`): a pool, optionally on a schema of its own; statements outside a
 * transaction are sent again when the server had ended their connection; LISTEN on a connection of its own.
 */
import type { Pool, PoolClient } from 'pg';
import { createHotStatements } from './hot-statements.ts';
import type { Database, Queryable, Subscription } from './queryable.ts';
import { assertStorableParameters } from './storable-text.ts';

export async function openPostgres(
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
    transaction: (fn) => postgresTransaction(pool, wrap, max, fn),
    listen: (channel, onNotify, onGap) => listenPostgres(pg, url, schema, channel, onNotify, onGap),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/**
 * Runs `fn` in a transaction on a pooled connection (taken again while the pool hands out dead ones): committed when
 * it resolves, rolled back when it throws; a connection that failed is destroyed, not returned to the pool.
 */
async function postgresTransaction<T>(
  pool: Pool,
  wrap: (client: PoolClient) => Queryable,
  max: number,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
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

/** Quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
