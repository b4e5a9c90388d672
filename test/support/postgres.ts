/** PostgreSQL helpers for the test suite (database creation needs a connection outside the target). */
import { openDatabase, type Database } from '#host/db/database.ts';

/** The maintenance database URL of the server `url` points at. */
export function adminUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** Runs `fn` with a one-connection database, closed afterwards. */
export async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
