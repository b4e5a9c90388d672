/** The storage interface both back-ends implement (database.ts opens one): statements, transactions, LISTEN. */
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
