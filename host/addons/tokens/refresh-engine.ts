/**
 * The one refresh engine of the add-on runtime, for both grants an authorization holds (the host's own,
 * the integrator's; a GrantKind says how to ask each issuer). A token inside the lead window before its
 * expiry, or one the API just refused, is refreshed exactly once however many callers want it:
 *
 * - in a process, one flight per authorization and side; every caller awaits it;
 * - across processes, a short lease on the row (authorizations/lease.ts), claimed by one conditional
 *   UPDATE committed before the token request — no pooled connection waits on the network, so any
 *   number of concurrent refreshes cannot starve the pool that the host's own token endpoint needs;
 * - the rotated tokens are written by an UPDATE that checks the lease is still ours, and releases it;
 * - a process that finds the lease taken polls the row until the other one's tokens appear (or its
 *   lease runs out: a process that died mid-refresh delays the next one by at most one lease);
 * - `invalid_grant` moves the record to `reauthorization_required` (tokens kept, so the person sees why), and, in
 *   the same transaction, records the `addon.authorization.reauthorization_required` lifecycle event (with
 *   `lifecycle`; host/addons/lifecycle).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import { AddonError } from '../addon-error.ts';
import {
  claimRefreshLease,
  keyIdOf,
  releaseRefreshLease,
  requireReauthorization,
  writeRefreshedTokens,
  type LeasedTokens,
  type RefreshSide,
  type TokenVault,
  type VaultRecord,
} from '../authorizations/index.ts';
import type { Clock } from '../clock.ts';
import { recordAddonLifecycleEvent } from '../lifecycle/index.ts';
import type { Installation } from '../registry/index.ts';
import { tokenSetOf } from './integrator-client.ts';
import type { GrantKind } from './grant-kind.ts';

/** What the engine needs. */
export interface RefreshEngineOptions {
  db: Queryable;
  vault: TokenVault;
  clock: Clock;
  logger: Logger;
  /** Refresh this long before expiry (ms). */
  leadMs: number;
  /** How long a claimed lease lasts (ms): longer than a token request may take. */
  leaseMs: number;
  /** How often a process waiting for another one's refresh looks at the row (ms). */
  pollMs?: number;
  kinds: Record<RefreshSide, GrantKind>;
  /** Called after each refresh grant request with its outcome (metrics). */
  onRefresh?: (side: RefreshSide, outcome: 'success' | 'failure') => void;
  /** Records the lifecycle event of a move to `reauthorization_required` in the move's transaction (absent: none). */
  lifecycle?: { transaction: Database['transaction']; box: SecretBox };
}

/** Usable access tokens of both sides, refreshed when due. */
export interface RefreshEngine {
  /**
   * A usable access token of the record's side: the stored one, or a refreshed one when it is inside
   * the lead window or equals `rejected` (the token the API just answered 401 to).
   */
  accessToken(
    side: RefreshSide,
    record: VaultRecord,
    installation: Installation,
    options?: { rejected?: string },
  ): Promise<string>;
}

/** True when a token with this expiry should be refreshed now (a token without expiry never is). */
export function dueForRefresh(expiresAt: Date | undefined, now: number, leadMs: number): boolean {
  return expiresAt !== undefined && expiresAt.getTime() - leadMs <= now;
}

/** The vault's sealed columns of a side. */
function sealedColumns(side: RefreshSide) {
  return { access: `${side}_access_token_encrypted`, refresh: `${side}_refresh_token_encrypted` } as const;
}

/** What the engine's steps share. */
interface EngineContext {
  options: RefreshEngineOptions;
  pollMs: number;
}

/** Creates the engine: a refresh of a record's side runs once per process, and once across processes by a lease. */
export function createRefreshEngine(options: RefreshEngineOptions): RefreshEngine {
  const context: EngineContext = { options, pollMs: options.pollMs ?? 50 };
  const inFlight = new Map<string, Promise<string>>();
  return {
    accessToken(side, record, installation, opts = {}) {
      const kind = options.kinds[side];
      let token: string;
      let expiresAt: Date | undefined;
      try {
        ({ accessToken: token, expiresAt } = kind.usable(record.state, record[side]));
      } catch (error) {
        return Promise.reject(error);
      }
      if (!dueForRefresh(expiresAt, options.clock.now(), options.leadMs) && opts.rejected !== token)
        return Promise.resolve(token);
      const key = `${record.id}:${side}`;
      const running = inFlight.get(key);
      if (running) return running;
      const flight = refreshAcrossProcesses(context, { kind, recordId: record.id, installation, stale: token }).finally(
        () => inFlight.delete(key),
      );
      inFlight.set(key, flight);
      return flight;
    },
  };
}

/** One refresh: the grant, the record and installation, and the access token found stale. */
interface Refresh {
  kind: GrantKind;
  recordId: string;
  installation: Installation;
  stale: string;
}

/** One refresh of a record's side, across processes: claim the lease or wait for whoever holds it. */
async function refreshAcrossProcesses(context: EngineContext, refresh: Refresh): Promise<string> {
  const { db, vault, leaseMs } = context.options;
  const { kind, recordId, stale } = refresh;
  // A lease held by a process that died runs out within one lease; give the holder that long, twice.
  const deadline = Date.now() + 2 * leaseMs;
  for (;;) {
    const owner = randomUUID();
    const claimed = await claimRefreshLease(db, recordId, kind.side, owner, leaseMs);
    if (claimed) return refreshLeased(context, refresh, owner, claimed);
    await sleep(context.pollMs);
    const current = await vault.findById(recordId);
    const tokens = kind.usable(current?.state ?? 'uninitialized', current?.[kind.side]);
    if (tokens.accessToken !== stale) return tokens.accessToken;
    if (Date.now() > deadline) throw kind.unavailable('Another host process is still refreshing this token; try again');
  }
}

/**
 * Runs the refresh under a lease we hold; `claimed` is the side's tokens as the claim found them. Its steps: open
 * the claimed tokens (another refresh may have won meanwhile), call the grant, store what it answered.
 */
async function refreshLeased(
  context: EngineContext,
  refresh: Refresh,
  owner: string,
  claimed: LeasedTokens,
): Promise<string> {
  const opened = await openClaimed(context, refresh, owner, claimed);
  if ('current' in opened) return opened.current;
  const response = await callGrant(context, refresh, owner, opened.refreshToken);
  return storeRefreshed(context, refresh, owner, response);
}

/** The claimed refresh token, or the access token another refresh stored between our read and our claim. */
async function openClaimed(
  context: EngineContext,
  { kind, recordId, stale, installation }: Refresh,
  owner: string,
  claimed: LeasedTokens,
): Promise<{ current: string } | { refreshToken: string }> {
  const { db, vault } = context.options;
  const columns = sealedColumns(kind.side);
  const release = () => releaseRefreshLease(db, recordId, kind.side, owner);
  let refreshToken: string | undefined;
  try {
    const access =
      claimed.accessSealed === null ? undefined : vault.open(recordId, columns.access, claimed.accessSealed);
    refreshToken =
      claimed.refreshSealed === null ? undefined : vault.open(recordId, columns.refresh, claimed.refreshSealed);
    kind.usable(
      claimed.state,
      access === undefined ? undefined : { accessToken: access, refreshToken, expiresAt: undefined, scope: undefined },
    );
    // Another process (or an earlier flight) refreshed between our read and our claim: use its token.
    if (access !== stale) {
      await release();
      return { current: access! };
    }
  } catch (error) {
    await release();
    throw error;
  }
  if (!refreshToken) {
    await reauthorize(context, recordId, kind.side, owner, installation);
    throw kind.reauthorization('no_refresh_token');
  }
  return { refreshToken };
}

/** The grant's answer to the refresh token; on failure the record needs re-authorization or keeps its tokens. */
async function callGrant(
  context: EngineContext,
  { kind, recordId, installation }: Refresh,
  owner: string,
  refreshToken: string,
): Promise<Awaited<ReturnType<GrantKind['refresh']>>> {
  const { options } = context;
  const { side } = kind;
  try {
    const response = await kind.refresh(refreshToken, installation);
    options.onRefresh?.(side, 'success');
    return response;
  } catch (error) {
    options.onRefresh?.(side, 'failure');
    if (error instanceof AddonError && error.code === 'reauthorization_required') {
      // Kept, not deleted: the person sees why and re-authorizes; the record is reused.
      await reauthorize(context, recordId, side, owner, installation);
    } else {
      // Retryable or not, the stored tokens stay as they were.
      await releaseRefreshLease(options.db, recordId, side, owner).catch(() => {});
    }
    throw error;
  }
}

/** The record moves to `reauthorization_required` (while we hold the lease); its lifecycle event with it. */
async function reauthorize(
  { options }: EngineContext,
  recordId: string,
  side: RefreshSide,
  owner: string,
  installation: Installation,
): Promise<void> {
  const { lifecycle, db, clock } = options;
  if (!lifecycle) {
    await requireReauthorization(db, recordId, side, owner);
    return;
  }
  await lifecycle.transaction(async (tx) => {
    const moved = await requireReauthorization(tx, recordId, side, owner);
    if (!moved) return;
    await recordAddonLifecycleEvent(tx, lifecycle.box, {
      name: 'addon.authorization.reauthorization_required',
      installation,
      personId: moved.personId,
      integratorSubject: moved.subject,
      occurredAt: new Date(clock.now()),
    });
  });
}

/** Seals and writes the refreshed tokens under our lease; answers the new access token. */
async function storeRefreshed(
  { options: { db, vault, clock, logger } }: EngineContext,
  { kind: { side }, recordId, installation }: Refresh,
  owner: string,
  response: Awaited<ReturnType<GrantKind['refresh']>>,
): Promise<string> {
  const columns = sealedColumns(side);
  const now = clock.now();
  const tokens = tokenSetOf(response, now);
  const accessSealed = vault.seal(recordId, columns.access, tokens.accessToken);
  const written = await writeRefreshedTokens(db, recordId, side, owner, {
    accessSealed,
    refreshSealed:
      tokens.refreshToken === undefined ? null : vault.seal(recordId, columns.refresh, tokens.refreshToken),
    expiresAt: tokens.expiresAt ?? null,
    scope: tokens.scope ?? null,
    keyId: keyIdOf(accessSealed),
    refreshedAt: new Date(now),
  });
  // Only when this process stalled for longer than the lease: the token works, the row keeps the other refresh's.
  if (!written) logger.warn({ authorizationId: recordId, side }, 'refresh lease lost before the tokens were written');
  else logger.info({ authorizationId: recordId, installationId: installation.id, side }, 'token refreshed');
  return tokens.accessToken;
}
