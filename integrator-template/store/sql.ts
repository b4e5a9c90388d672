/**
 * The integrator's storage interface over two back-ends speaking PostgreSQL's dialect: PGlite (embedded: a
 * directory or memory) and a PostgreSQL server (through `pg`). Everything in `store/` issues SQL through it.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Pool, PoolClient } from 'pg';

/** Rows of one statement. */
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

/** An open database. */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PGlite in `dataDir` (`memory://` or undefined: in memory). */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = new PGlite(dataDir && dataDir !== 'memory://' ? { dataDir } : {});
  await pglite.waitReady;
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await q.query<T>(sql, params as unknown[]);
      // PGlite reports affectedRows 0 for a SELECT; pg counts the rows returned. Match pg.
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const base = wrap(pglite);
  return {
    kind: 'pglite',
    ...base,
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    close: () => pglite.close(),
  };
}

/** A pool on a PostgreSQL server whose connections use `schema` (created when missing). */
export async function openPostgres(url: string, schema: string | undefined, max = 10): Promise<Database> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
  });
  // An idle client's error (a server restart) must not crash the process.
  pool.on('error', () => {});
  if (schema) {
    // search_path names the schema on every connection, so it must exist before the pool's first query.
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } finally {
      await setup.end();
    }
  }
  const wrap = (q: Pool | PoolClient): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await q.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
    async exec(sql: string) {
      await q.query(sql);
    },
  });
  const base = wrap(pool);
  return {
    kind: 'postgres',
    ...base,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
