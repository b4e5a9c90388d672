/**
 * The reads of one refresh_token grant in one statement: the refresh token, its grant, and its person
 * with the organization's access mode for the token's application. oidc-provider asks for them one after
 * the other (RefreshToken.find, Grant.find, findAccount); the first ask reads them all and the later asks
 * of the same request are answered from what it read — kept per request (keyed on its context) and taken
 * once, never shared between requests, so a revocation or an access change is seen by the next request.
 */
import type { AdapterPayload } from 'oidc-provider';
import { personSql, type PersonRecord } from '../../auth/person.ts';
import type { Queryable } from '../../db/database.ts';
import { accessRowSql, type AccessRow } from '../application-access.ts';

/** A stored oidc-provider record as the adapter reads it. */
export interface RecordRow {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

/** What one refresh grant's person lookup needs: the person and the access row, read with the token. */
export interface PrefetchedAccount {
  person: PersonRecord | undefined;
  access: AccessRow | undefined;
}

interface Prefetched {
  grant?: { id: string; row: RecordRow | undefined };
  account?: { personId: string; clientId: string } & PrefetchedAccount;
}

const prefetched = new WeakMap<object, Prefetched>();

const ACCOUNT_ID = "(rt.payload->>'accountId')";
const CLIENT_ID = "(rt.payload->>'clientId')";
// Only a person id that `people.id` can hold is looked up (anything else: no person, as no row).
const PERSON_ID = `CASE WHEN ${ACCOUNT_ID} ~ '^[0-9]{1,18}$' THEN ${ACCOUNT_ID}::bigint END`;

// One row, every part an index lookup keyed by the token's row: scalar subqueries, each run once with the token's
// row as its parameter. A join (a CTE, a LATERAL) is planned as a join instead: with few grants in the table's
// statistics (PGlite never analyzes on its own, nor does PostgreSQL a new table before autovacuum) the grant was
// found by reading every grant and hashing each one's token against its digest, a cost growing with the grants.
const GRANT_DIGEST = "encode(sha256(convert_to(rt.payload->>'grantId', 'UTF8')), 'hex')";
const READ = `SELECT rt.payload, rt.consumed_at,
    (SELECT row_to_json(g) FROM (
       SELECT payload, consumed_at FROM oauth_provider_records
       WHERE model = 'Grant' AND id_digest = ${GRANT_DIGEST} AND (expires_at IS NULL OR expires_at > $3)
     ) g) AS grant,
    (SELECT row_to_json(x) FROM (${personSql()} WHERE p.id = ${PERSON_ID}) x) AS person,
    (SELECT row_to_json(x) FROM (${accessRowSql(PERSON_ID, CLIENT_ID)}) x) AS access
  FROM oauth_provider_records rt
  WHERE rt.model = 'RefreshToken' AND rt.id_digest = $1 AND (rt.expires_at IS NULL OR rt.expires_at > $2)`;

interface ReadRow extends RecordRow {
  /** As JSON: its time as ISO 8601 text. */
  grant: { payload: AdapterPayload; consumed_at: string | null } | null;
  person: PersonRecord | null;
  access: AccessRow | null;
}

/**
 * Reads the refresh token with digest `digest` (expired before `tokenNotBefore`: not found), and keeps
 * its grant (expired before `now`: none) and its person for this request's later asks.
 */
export async function readRefreshGrant(
  db: Queryable,
  ctx: object,
  digest: string,
  tokenNotBefore: Date,
  now: Date,
): Promise<RecordRow | undefined> {
  const { rows } = await db.query<ReadRow>(READ, [digest, tokenNotBefore, now]);
  const row = rows[0];
  if (!row) return undefined;
  const { grantId, accountId, clientId } = row.payload;
  const kept: Prefetched = {};
  if (typeof grantId === 'string') {
    const { grant } = row;
    kept.grant = {
      id: grantId,
      row: grant
        ? { payload: grant.payload, consumed_at: grant.consumed_at ? new Date(grant.consumed_at) : null }
        : undefined,
    };
  }
  if (typeof accountId === 'string' && typeof clientId === 'string')
    kept.account = { personId: accountId, clientId, person: row.person ?? undefined, access: row.access ?? undefined };
  prefetched.set(ctx, kept);
  return { payload: row.payload, consumed_at: row.consumed_at };
}

/** The grant `id` read with this request's refresh token, once; undefined when it was not (read it then). */
export function takePrefetchedGrant(ctx: object | undefined, id: string): { row: RecordRow | undefined } | undefined {
  const kept = ctx && prefetched.get(ctx);
  if (!kept?.grant || kept.grant.id !== id) return undefined;
  const { grant } = kept;
  delete kept.grant;
  return grant;
}

/** The person and access row read with this request's refresh token for `personId` and `clientId`, once. */
export function takePrefetchedAccount(
  ctx: object | undefined,
  personId: string,
  clientId: string | undefined,
): PrefetchedAccount | undefined {
  const kept = ctx && prefetched.get(ctx);
  const account = kept?.account;
  if (!account || account.personId !== personId || account.clientId !== clientId) return undefined;
  delete kept.account;
  return account;
}
