/**
 * Monthly active users and connections: every token issued to a person records the (application,
 * person, month) and the person's connection to the application with its current scopes.
 */
import type { Queryable } from '../db/database.ts';
import { APPLICATIONS_VIEW } from './applications.ts';

/** Records that `clientId` was issued a token for `personId` at `now` (UTC month). */
export async function recordTokenIssued(db: Queryable, issue: { clientId: string; personId: string; scopes: readonly string[]; now?: Date }): Promise<void> {
  const now = issue.now ?? new Date();
  await db.query(
    `INSERT INTO oauth_monthly_active_users (application_id, person_id, year, month)
     SELECT a.id, p.id, $3, $4 FROM ${APPLICATIONS_VIEW} a, people p WHERE a.client_id = $1 AND p.id = $2
     ON CONFLICT DO NOTHING`,
    [issue.clientId, issue.personId, now.getUTCFullYear(), now.getUTCMonth() + 1],
  );
  await db.query(
    `INSERT INTO oauth_connections (application_id, person_id, organization_id, scopes, connected_at)
     SELECT a.id, p.id, p.organization_id, $3, $4 FROM ${APPLICATIONS_VIEW} a, people p WHERE a.client_id = $1 AND p.id = $2
     ON CONFLICT (application_id, person_id) DO UPDATE SET scopes = EXCLUDED.scopes`,
    [issue.clientId, issue.personId, [...issue.scopes], now],
  );
}
