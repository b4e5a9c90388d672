/**
 * Monthly active users and connections: every token issued to a person records the (application,
 * person, month) and the person's connection to the application with its current scopes.
 */
import type { Queryable } from '../db/database.ts';
import { APPLICATIONS_VIEW } from './applications.ts';

/** Records that `clientId` was issued a token for `personId` at `now` (UTC month): one statement, both rows. */
export async function recordTokenIssued(
  db: Queryable,
  issue: { clientId: string; personId: string; scopes: readonly string[]; now?: Date },
): Promise<void> {
  const now = issue.now ?? new Date();
  await db.query(
    `WITH target AS (
       SELECT a.id AS application_id, p.id AS person_id, p.organization_id FROM ${APPLICATIONS_VIEW} a, people p WHERE a.client_id = $1 AND p.id = $2
     ), active AS (
       INSERT INTO oauth_monthly_active_users (application_id, person_id, year, month)
       SELECT application_id, person_id, $3, $4 FROM target ON CONFLICT DO NOTHING
     )
     INSERT INTO oauth_connections (application_id, person_id, organization_id, scopes, connected_at)
     SELECT application_id, person_id, organization_id, $5, $6 FROM target
     ON CONFLICT (application_id, person_id) DO UPDATE SET scopes = EXCLUDED.scopes`,
    [issue.clientId, issue.personId, now.getUTCFullYear(), now.getUTCMonth() + 1, [...issue.scopes], now],
  );
}

/** Most (application, person, month) keys a process remembers before it starts over. */
const REMEMBERED_MAX = 100_000;

/**
 * The bookkeeping of refreshes: a refresh keeps the grant's scopes, so after its first token of a month
 * (which wrote the month's row and the connection) a person's further refreshes for that application
 * have nothing to record. Remembered per process; another process writes the same rows once more
 * (idempotent). Code exchanges always record (a new consent may change the connection's scopes).
 */
export function createRefreshActivity(): (
  db: Queryable,
  issue: { clientId: string; personId: string; scopes: readonly string[]; now?: Date },
) => Promise<void> {
  const seen = new Set<string>();
  return async (db, issue) => {
    const now = issue.now ?? new Date();
    const key = `${issue.clientId}\u0000${issue.personId}\u0000${now.getUTCFullYear()}-${now.getUTCMonth() + 1}`;
    if (seen.has(key)) return;
    await recordTokenIssued(db, issue);
    if (seen.size >= REMEMBERED_MAX) seen.clear();
    seen.add(key);
  };
}
