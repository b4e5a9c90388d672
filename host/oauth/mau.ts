/**
 * Monthly active users and connections: every token issued to a person records the (application,
 * person, month) and the person's connection to the application with its current scopes. The one owner of
 * `oauth_monthly_active_users` and `oauth_connections`: the developer API and the access settings read them
 * through the SQL below.
 */
import type { Queryable } from '../db/database.ts';
import { joinPeople } from '../directory/index.ts';
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

/** SQL: true when a person of organization `organization` connected application `application` (column or `$n`). */
export function connectedInOrganization(application: string, organization: string): string {
  return `EXISTS (SELECT 1 FROM oauth_connections c WHERE c.application_id = ${application} AND c.organization_id = ${organization})`;
}

/** SQL: how many people of organization `organization` connected application `application`. */
export function connectedPeopleCount(application: string, organization: string): string {
  return `(SELECT count(*)::int FROM oauth_connections c
   WHERE c.application_id = ${application} AND c.organization_id = ${organization})`;
}

/**
 * SQL: the FROM of the people of organization `$2` who connected application `$1`, as `c` (the connection) and
 * `p` (the person).
 */
export const CONNECTED_PEOPLE_FROM = `
  FROM oauth_connections c ${joinPeople('p', 'c.person_id')}
  WHERE c.application_id = $1 AND c.organization_id = $2 AND p.organization_id = $2`;

/** SQL: the FROM of application `$1`'s monthly-active-user rows `m` from month index `$2` to `$3` (year * 12 + month - 1). */
export const MONTHLY_ACTIVE_USERS_FROM = `FROM oauth_monthly_active_users m WHERE m.application_id = $1 AND (m.year * 12 + m.month - 1) BETWEEN $2 AND $3`;

/** Keeps the MAU rows of the 24 months up to and including `now`'s month; deletes older ones. */
export async function purgeOldMonthlyActiveUsers(db: Queryable, now = new Date()): Promise<number> {
  const cutoff = now.getUTCFullYear() * 12 + now.getUTCMonth() - 23;
  const { rowCount } = await db.query('DELETE FROM oauth_monthly_active_users WHERE year * 12 + (month - 1) < $1', [
    cutoff,
  ]);
  return rowCount;
}
