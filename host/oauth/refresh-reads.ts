/**
 * The reads of one refresh_token grant in one statement: the refresh token, its grant, and its person
 * with the organization's access mode for the token's application. oidc-provider asks for them one after
 * the other (RefreshToken.find, Grant.find, findAccount); the first ask reads them all and the later asks
 * of the same request are answered from what it read — kept per request (keyed on its context) and taken
 * once, never shared between requests, so a revocation or an access change is seen by the next request.
 */
import type { AdapterPayload } from 'oidc-provider';
import { personSql, type PersonRecord } from '../auth/person.ts';
import type { Queryable } from '../db/database.ts';
import { accessRowSql, type AccessRow } from './application-access.ts';

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

const READ = `WITH rt AS (
    SELECT payload, consumed_at, expires_at FROM oauth_provider_records WHERE model = 'RefreshToken' AND id_digest = $1
  )
  SELECT 'RefreshToken' AS model, rt.payload, rt.consumed_at, NULL::json AS person, NULL::json AS access
  FROM rt WHERE rt.expires_at IS NULL OR rt.expires_at > $2
  UNION ALL
  SELECT 'Grant', g.payload, g.consumed_at, NULL, NULL FROM rt JOIN oauth_provider_records g
    ON g.model = 'Grant' AND g.id_digest = encode(sha256(convert_to(rt.payload->>'grantId', 'UTF8')), 'hex')
  WHERE g.expires_at IS NULL OR g.expires_at > $3
  UNION ALL
  SELECT 'Account', NULL, NULL,
    (SELECT row_to_json(x) FROM (${personSql()} WHERE p.id = ${ACCOUNT_ID}::bigint) x),
    (SELECT row_to_json(x) FROM (${accessRowSql(`${ACCOUNT_ID}::bigint`, "rt.payload->>'clientId'")}) x)
  FROM rt WHERE ${ACCOUNT_ID} ~ '^[0-9]{1,18}$' AND rt.payload->>'clientId' IS NOT NULL`;

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
  const { rows } = await db.query<RecordRow & { model: string; person: PersonRecord | null; access: AccessRow | null }>(
    READ,
    [digest, tokenNotBefore, now],
  );
  const token = rows.find((r) => r.model === 'RefreshToken');
  if (!token) return undefined;
  const { grantId, accountId, clientId } = token.payload;
  const kept: Prefetched = {};
  if (typeof grantId === 'string') kept.grant = { id: grantId, row: rows.find((r) => r.model === 'Grant') };
  const account = rows.find((r) => r.model === 'Account');
  if (account && typeof accountId === 'string' && typeof clientId === 'string')
    kept.account = {
      personId: accountId,
      clientId,
      person: account.person ?? undefined,
      access: account.access ?? undefined,
    };
  prefetched.set(ctx, kept);
  return token;
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
