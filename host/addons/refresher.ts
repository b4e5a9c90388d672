/**
 * Keeps integrator access tokens fresh: a token inside the lead window before its expiry is refreshed
 * on demand (a proxied call needs it) or by the background sweeper (nobody is using it). A token
 * without an expiry is refreshed only when the integrator rejects it (401).
 *
 * Exactly one refresh per token, however many callers: in a process, concurrent callers share one
 * promise; across processes, the refresh runs holding `SELECT … FOR UPDATE` on the vault row, and a
 * process that obtains the lock after another one refreshed re-reads and uses the new token. The
 * rotated refresh token is committed before the new access token is handed out, so a crash after the
 * integrator answered never leaves the vault holding a spent refresh token.
 */
import * as oidc from 'openid-client';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { AddonError, HandshakeRequiredError, ReauthorizationRequiredError } from './addon-error.ts';
import type { Clock } from './clock.ts';
import { integratorClientSecret, loadInstallation, type Installation } from './installations.ts';
import { integratorOAuthClient, tokenRequestError, tokenSetOf } from './integrator-client.ts';
import type { TokenVault, VaultRecord } from './token-vault.ts';

/** What the refresher needs. */
export interface RefresherOptions {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  clock: Clock;
  logger: Logger;
  /** Refresh this long before expiry (ms). */
  leadMs: number;
  /** Seconds a token request may take. */
  tokenTimeoutSeconds: number;
  /** Passed to the integrator client: development token endpoints on private addresses allowed. */
  allowPrivateAddresses: boolean;
}

/** On-demand and background refresh of integrator tokens. */
export interface Refresher {
  /**
   * A usable integrator access token of a vault record: the stored one, or a refreshed one when it is
   * inside the lead window or equals `rejected` (the token the integrator just answered 401 to).
   */
  integratorAccessToken(record: VaultRecord, installation: Installation, options?: { rejected?: string }): Promise<string>;
  /** Refreshes every ready token inside the lead window once; returns how many were refreshed. */
  sweep(): Promise<number>;
  /** Runs `sweep` every `intervalMs` until `stop`. */
  start(intervalMs: number): void;
  /** Stops the sweeper and waits for a running sweep. */
  stop(): Promise<void>;
}

/**
 * Runs a refresh holding the vault row's lock: on PostgreSQL in a transaction (`fn` locks the row
 * with `SELECT … FOR UPDATE`), so host processes sharing the database refresh one at a time. PGlite is
 * embedded — one process, one connection — so the in-process single flight already makes the refresh
 * unique, and holding its only connection across an HTTP call would stall every other query (and
 * deadlock a refresh at the host's own token endpoint).
 */
export function underRefreshLock<T>(db: Database, fn: (q: Queryable, lock: boolean) => Promise<T>): Promise<T> {
  if (db.kind === 'pglite') return fn(db, false);
  return db.transaction((tx) => fn(tx, true));
}

/** True when a token with this expiry should be refreshed now. */
export function dueForRefresh(expiresAt: Date | undefined, now: number, leadMs: number): boolean {
  return expiresAt !== undefined && expiresAt.getTime() - leadMs <= now;
}

/** Creates the refresher (its sweeper is started separately with `start`). */
export function createRefresher(options: RefresherOptions): Refresher {
  const { db, box, vault, clock, logger, leadMs } = options;
  const inFlight = new Map<string, Promise<string>>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;

  function ensureReady(record: VaultRecord): string {
    if (record.state === 'reauthorization_required') throw new ReauthorizationRequiredError();
    if (record.state !== 'ready' || !record.integrator) throw new HandshakeRequiredError();
    return record.integrator.accessToken;
  }

  /** Refreshes under the row lock unless another process already did; returns the token to use. */
  async function refreshLocked(recordId: string, installation: Installation, stale: string): Promise<string> {
    const outcome = await underRefreshLock(db, async (tx, lock) => {
      const current = await vault.findById(recordId, { q: tx, forUpdate: lock });
      if (!current) throw new HandshakeRequiredError();
      const token = ensureReady(current);
      const integrator = current.integrator!;
      // Another process (or an earlier flight) refreshed while we waited for the lock: use its token.
      if (token !== stale) return { token };
      if (!integrator.refreshToken) {
        await vault.setState(current.id, 'reauthorization_required', tx);
        return { error: new ReauthorizationRequiredError('The integrator gave no refresh token and no longer accepts the access token; authorize the add-on again') };
      }
      const secret = await integratorClientSecret(tx, box, installation.versionId);
      const client = integratorOAuthClient(installation, secret, { timeoutSeconds: options.tokenTimeoutSeconds, allowPrivateAddresses: options.allowPrivateAddresses });
      let response: oidc.TokenEndpointResponse;
      try {
        response = await oidc.refreshTokenGrant(client, integrator.refreshToken);
      } catch (error) {
        const typed = tokenRequestError(error);
        if (typed instanceof ReauthorizationRequiredError) {
          // Kept, not deleted: the person sees why and re-authorizes; the record is reused.
          await vault.setState(current.id, 'reauthorization_required', tx);
          return { error: typed };
        }
        // Retryable or not, the stored tokens stay as they were (the transaction rolls back nothing).
        throw typed;
      }
      const now = clock.now();
      await vault.saveIntegratorTokens(current.id, tokenSetOf(response, now), { q: tx, refreshedAt: new Date(now) });
      logger.info({ authorizationId: current.id, installationId: installation.id }, 'integrator token refreshed');
      return { token: response.access_token };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.token;
  }

  function refreshOnce(record: VaultRecord, installation: Installation, stale: string): Promise<string> {
    const running = inFlight.get(record.id);
    if (running) return running;
    const flight = refreshLocked(record.id, installation, stale).finally(() => inFlight.delete(record.id));
    inFlight.set(record.id, flight);
    return flight;
  }

  async function sweep(): Promise<number> {
    const horizon = new Date(clock.now() + leadMs);
    const { rows } = await db.query<{ id: string; installation_id: string }>(
      `SELECT id::text, installation_id::text FROM addon_authorizations
       WHERE state = 'ready' AND integrator_refresh_token_encrypted IS NOT NULL AND integrator_expires_at <= $1
       ORDER BY integrator_expires_at LIMIT 100`,
      [horizon],
    );
    let refreshed = 0;
    for (const row of rows) {
      try {
        const [record, installation] = await Promise.all([vault.findById(row.id), loadInstallation(db, row.installation_id)]);
        if (!record || !installation || record.state !== 'ready' || !record.integrator) continue;
        if (!dueForRefresh(record.integrator.expiresAt, clock.now(), leadMs)) continue;
        await refreshOnce(record, installation, record.integrator.accessToken);
        refreshed += 1;
      } catch (error) {
        const code = error instanceof AddonError ? error.code : 'unexpected';
        logger.warn({ authorizationId: row.id, code }, 'background refresh failed');
      }
    }
    return refreshed;
  }

  return {
    async integratorAccessToken(record, installation, opts = {}) {
      const token = ensureReady(record);
      const due = dueForRefresh(record.integrator!.expiresAt, clock.now(), leadMs);
      if (!due && opts.rejected !== token) return token;
      return refreshOnce(record, installation, token);
    },
    sweep,
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => {
        if (sweeping) return;
        sweeping = sweep()
          .catch((error: unknown) => logger.warn({ err: error }, 'sweep failed'))
          .finally(() => (sweeping = undefined));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}
