/**
 * One storage interface over two back-ends speaking the same SQL dialect:
 * PGlite (embedded, default — a data directory or memory; pglite.ts) and PostgreSQL (through `pg`; postgres.ts).
 */
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

import type { Database } from './queryable.ts';

export type { Database, PoolStats, QueryResult, Queryable, Subscription } from './queryable.ts';
export { DataDirInUseError } from './pglite.ts';
export { isDeadConnection, quoteIdent } from './postgres.ts';

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
