/**
 * Housekeeping: what the integrator no longer needs leaves its tables (the spec's "do not store tokens that are not
 * needed"). Run at start and hourly by `startIntegrator`; each table's owner keeps its own rows' meaning, this file
 * only decides when a row is past use.
 *
 * - `addon_kit_events`: an event id is kept while the host may still deliver that event — its 17 attempts span
 *   about 23 days, and a finished event stays redeliverable for 30 days — so 60 days after it was received.
 * - `authorization_codes`, `access_tokens`, `refresh_tokens`: a day after they expired (an expired one is refused
 *   anyway; the day keeps "expired" as the answer a client sees in the meantime).
 * - `token_families` revoked a day ago, with what descends from them.
 */
import type { Queryable } from './sql.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Days a received lifecycle event's id is remembered (the receiver's idempotency window). */
export const RECEIVED_EVENT_RETENTION_DAYS = 60;

/** Rows deleted, by table. */
export interface Pruned {
  addon_kit_events: number;
  authorization_codes: number;
  access_tokens: number;
  refresh_tokens: number;
  token_families: number;
}

/** Deletes the rows past use at `now`; returns how many of each table. */
export async function pruneExpired(db: Queryable, now: Date): Promise<Pruned> {
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const eventsBefore = new Date(now.getTime() - RECEIVED_EVENT_RETENTION_DAYS * DAY_MS);
  const count = async (sql: string, param: Date) => (await db.query(sql, [param])).rowCount;
  return {
    addon_kit_events: await count('DELETE FROM addon_kit_events WHERE received_at < $1', eventsBefore),
    token_families: await count('DELETE FROM token_families WHERE revoked_at < $1', dayAgo),
    authorization_codes: await count('DELETE FROM authorization_codes WHERE expires_at < $1', dayAgo),
    access_tokens: await count('DELETE FROM access_tokens WHERE expires_at < $1', dayAgo),
    refresh_tokens: await count('DELETE FROM refresh_tokens WHERE expires_at < $1', dayAgo),
  };
}
