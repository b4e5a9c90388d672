/**
 * The refresh lease of an authorization's token set (one per side: the host's grant, the integrator's):
 * the SQL of the refresh engine (host/addons/tokens) on `addon_authorizations`. A lease is claimed with
 * one conditional UPDATE, committed on its own before the token request goes out, so no pooled
 * connection is held across the network; the refreshed tokens are written only while the writer still
 * owns the lease, which the same statement releases.
 */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import type { Queryable } from '../../db/database.ts';
import { sourcesOf, type AuthorizationState } from './states.ts';

/** Which token set of an authorization: the host's own grant or the integrator's. */
export type RefreshSide = AddonSide;

/** Sealed columns and lease columns per side; never built from input. */
const COLUMNS = {
  service: {
    access: 'service_access_token_encrypted',
    refresh: 'service_refresh_token_encrypted',
    expires: 'service_expires_at',
    until: 'service_refresh_lease_until',
    owner: 'service_refresh_lease_owner',
  },
  integrator: {
    access: 'integrator_access_token_encrypted',
    refresh: 'integrator_refresh_token_encrypted',
    expires: 'integrator_expires_at',
    until: 'integrator_refresh_lease_until',
    owner: 'integrator_refresh_lease_owner',
  },
} as const;

/** The sealed token columns of one side, as a claim finds them. */
export interface LeasedTokens {
  state: AuthorizationState;
  accessSealed: string | null;
  refreshSealed: string | null;
}

/** A refreshed token set, sealed for its row and columns. */
export interface SealedRefresh {
  accessSealed: string;
  /** Null keeps the stored refresh token (a response without one, RFC 6749 §6). */
  refreshSealed: string | null;
  expiresAt: Date | null;
  /** The integrator's scope when it sent one (the host grant's scopes do not change on refresh). */
  scope: string | null;
  /** The key the values are sealed with. */
  keyId: string;
  refreshedAt: Date;
}

/**
 * Claims the side's lease for `leaseMs` when nobody holds a live one; returns the side's stored tokens
 * at that moment, or undefined when another refresh holds the lease (or the row is gone).
 */
export async function claimRefreshLease(
  q: Queryable,
  id: string,
  side: RefreshSide,
  owner: string,
  leaseMs: number,
): Promise<LeasedTokens | undefined> {
  const c = COLUMNS[side];
  const { rows } = await q.query<{ state: AuthorizationState; access: string | null; refresh: string | null }>(
    `UPDATE addon_authorizations SET ${c.until} = now() + $3::int * interval '1 millisecond', ${c.owner} = $2
     WHERE id = $1 AND (${c.until} IS NULL OR ${c.until} <= now())
     RETURNING state, ${c.access} AS access, ${c.refresh} AS refresh`,
    [id, owner, Math.ceil(leaseMs)],
  );
  const row = rows[0];
  return row && { state: row.state, accessSealed: row.access, refreshSealed: row.refresh };
}

/** Writes the refreshed tokens and releases the lease, only while `owner` holds it; false when it lost it. */
export async function writeRefreshedTokens(
  q: Queryable,
  id: string,
  side: RefreshSide,
  owner: string,
  tokens: SealedRefresh,
): Promise<boolean> {
  const c = COLUMNS[side];
  const integratorOnly =
    side === 'integrator' ? ', integrator_scope = COALESCE($7, integrator_scope), integrator_refreshed_at = $8' : '';
  const params: unknown[] = [id, owner, tokens.accessSealed, tokens.refreshSealed, tokens.expiresAt, tokens.keyId];
  if (side === 'integrator') params.push(tokens.scope, tokens.refreshedAt);
  const { rowCount } = await q.query(
    `UPDATE addon_authorizations SET ${c.access} = $3, ${c.refresh} = COALESCE($4, ${c.refresh}), ${c.expires} = $5,
       encryption_key_id = $6${integratorOnly}, ${c.until} = NULL, ${c.owner} = NULL, updated_at = now()
     WHERE id = $1 AND ${c.owner} = $2`,
    params,
  );
  return rowCount === 1;
}

/**
 * Moves the record to `reauthorization_required` (tokens kept) and releases the lease, only while `owner` holds it.
 * Returns the row's integrator subject when the state moved (the `reauthorization_required` event is recorded in
 * the same transaction), undefined when nothing changed.
 */
export async function requireReauthorization(
  q: Queryable,
  id: string,
  side: RefreshSide,
  owner: string,
): Promise<{ subject: string | null; personId: string } | undefined> {
  const c = COLUMNS[side];
  const { rows } = await q.query<{ subject: string | null; person_id: string }>(
    `UPDATE addon_authorizations SET state = 'reauthorization_required', ${c.until} = NULL, ${c.owner} = NULL, updated_at = now()
     WHERE id = $1 AND ${c.owner} = $2 AND state = ANY($3::text[])
     RETURNING integrator_subject AS subject, person_id::text`,
    [id, owner, sourcesOf('reauthorization_required')],
  );
  return rows[0] && { subject: rows[0].subject, personId: rows[0].person_id };
}

/** Releases the lease without touching the tokens (a failed or needless refresh), only while `owner` holds it. */
export async function releaseRefreshLease(q: Queryable, id: string, side: RefreshSide, owner: string): Promise<void> {
  const c = COLUMNS[side];
  await q.query(
    `UPDATE addon_authorizations SET ${c.until} = NULL, ${c.owner} = NULL WHERE id = $1 AND ${c.owner} = $2`,
    [id, owner],
  );
}

/** Ready authorizations whose refreshable integrator token expires before `horizon`, soonest first. */
export async function integratorTokensDue(
  q: Queryable,
  horizon: Date,
  limit: number,
): Promise<{ id: string; installationId: string }[]> {
  const { rows } = await q.query<{ id: string; installation_id: string }>(
    `SELECT id::text, installation_id::text FROM addon_authorizations
     WHERE state = 'ready' AND integrator_refresh_token_encrypted IS NOT NULL AND integrator_expires_at <= $1
     ORDER BY integrator_expires_at LIMIT $2`,
    [horizon, limit],
  );
  return rows.map((r) => ({ id: r.id, installationId: r.installation_id }));
}
