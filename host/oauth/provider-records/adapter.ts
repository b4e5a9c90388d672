/**
 * The oidc-provider storage adapter over the host database. Every model lives in
 * `oauth_provider_records`, keyed by the SHA-256 of its id: token, code and session ids are bearer
 * secrets, so a copy of the database reveals none of them (payloads are stored without `jti`).
 * Clients are not stored here: they are the host's `oauth_applications` (see `client-adapter.ts`).
 */
import { createHash } from 'node:crypto';
import Provider, { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../../db/database.ts';
import { readRefreshGrant, takePrefetchedGrant, type RecordRow } from './refresh-reads.ts';
import { ON_CONFLICT, addRecord, refreshWritesOf, type ProviderRecord } from './refresh-writes.ts';

/** Hex SHA-256 of a record id. */
export function recordDigest(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

/**
 * A refresh token presented again within this many seconds of its rotation is taken for a concurrent
 * duplicate of the request that rotated it (two tabs, a retried request): the same client gets the
 * same answer again (refresh-replay.ts) and the grant is not revoked. Later reuse revokes the whole grant.
 * @see RFC 9700 §4.14.2
 */
export const REFRESH_CONCURRENCY_GRACE_SECONDS = 10;

/** Expired records are kept this long before housekeeping deletes them. */
export const EXPIRED_RECORD_RETENTION_SECONDS = 24 * 60 * 60;

/**
 * Models returned even when expired (until purged): oidc-provider finds codes and refresh tokens
 * ignoring expiry and checks it itself, so that a used one presented again is still recognised as a
 * replay. Every other model is invisible once expired.
 * @see RFC 6749 §4.1.2
 */
const FOUND_WHEN_EXPIRED = new Set(['AuthorizationCode', 'RefreshToken']);

/**
 * Whether the provider request in progress is a refresh_token grant: the only place where a just-rotated
 * refresh token is shown as unconsumed; introspection, revocation and the rest always see it consumed.
 * @see RFC 7662 §2.2
 */
function inRefreshTokenGrant(): boolean {
  const ctx = Provider.ctx;
  return ctx?.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token';
}

/** The adapter of one model. Times come from the JS clock, as oidc-provider's own checks do. */
export class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Queryable,
    private readonly model: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...stored } = payload;
    const record: ProviderRecord = {
      model: this.model,
      id_digest: recordDigest(id),
      payload: stored,
      grant_id: payload.grantId ?? null,
      uid: payload.uid ?? null,
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    // A refresh grant's saves go out with its consume, in one statement (refresh-writes.ts).
    const writes = inRefreshTokenGrant() ? refreshWritesOf(Provider.ctx) : undefined;
    if (writes) return addRecord(writes, record);
    await this.db.query(
      `INSERT INTO oauth_provider_records (model, id_digest, payload, grant_id, uid, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) ${ON_CONFLICT}`,
      [record.model, record.id_digest, JSON.stringify(stored), record.grant_id, record.uid, record.expires_at],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const retention = FOUND_WHEN_EXPIRED.has(this.model) ? EXPIRED_RECORD_RETENTION_SECONDS * 1000 : 0;
    const ctx = Provider.ctx;
    const now = Date.now();
    if (ctx && this.model === 'RefreshToken' && inRefreshTokenGrant()) {
      // One statement for the token, its grant and its person (refresh-reads.ts).
      const row = await readRefreshGrant(this.db, ctx, recordDigest(id), new Date(now - retention), new Date(now));
      return row && this.toPayload(row, id);
    }
    const prefetched = this.model === 'Grant' ? takePrefetchedGrant(ctx, id) : undefined;
    if (prefetched) return prefetched.row && this.toPayload(prefetched.row, id);
    const { rows } = await this.db.query<RecordRow>(
      'SELECT payload, consumed_at FROM oauth_provider_records WHERE model = $1 AND id_digest = $2 AND (expires_at IS NULL OR expires_at > $3)',
      [this.model, recordDigest(id), new Date(now - retention)],
    );
    return rows[0] && this.toPayload(rows[0], id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.db.query<RecordRow & { id: string }>(
      `SELECT payload, consumed_at FROM oauth_provider_records WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > $3)`,
      [this.model, uid, new Date()],
    );
    // The id itself is not stored, so a session found by uid cannot be re-saved under its id: only
    // oidc-provider's logout flows use this, and they are disabled.
    return rows[0] && rows[0].payload;
  }

  async findByUserCode(): Promise<AdapterPayload | undefined> {
    // Device flow is not enabled.
    return undefined;
  }

  /**
   * Marks a code or refresh token used, atomically: of two concurrent requests presenting the same
   * one, exactly one gets here first; the other is refused without side effects.
   * @see RFC 6749 §4.1.2 (codes are single use), RFC 9700 §4.14.2 (refresh token rotation)
   */
  async consume(id: string): Promise<void> {
    const writes = this.model === 'RefreshToken' && inRefreshTokenGrant() ? refreshWritesOf(Provider.ctx) : undefined;
    if (writes && !writes.consume) {
      // Takes effect, atomically, when the grant's writes are sent; refused then if another request got there first.
      writes.consume = { model: this.model, id_digest: recordDigest(id), at: new Date() };
      return;
    }
    const { rowCount } = await this.db.query(
      'UPDATE oauth_provider_records SET consumed_at = $3 WHERE model = $1 AND id_digest = $2 AND consumed_at IS NULL',
      [this.model, recordDigest(id), new Date()],
    );
    if (rowCount === 0)
      throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`);
  }

  async destroy(id: string): Promise<void> {
    await this.db.query('DELETE FROM oauth_provider_records WHERE model = $1 AND id_digest = $2', [
      this.model,
      recordDigest(id),
    ]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.query('DELETE FROM oauth_provider_records WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
  }

  private toPayload(row: RecordRow, id: string): AdapterPayload {
    const consumed = row.consumed_at ? Math.floor(row.consumed_at.getTime() / 1000) : undefined;
    // Within the grace period a refresh_token grant sees the token unconsumed: oidc-provider then tries
    // `consume`, which refuses it (invalid_grant) without oidc-provider's reuse response of revoking the
    // grant, and refresh-replay.ts answers with the first request's tokens.
    const concurrent =
      this.model === 'RefreshToken' &&
      consumed !== undefined &&
      Date.now() / 1000 - consumed < REFRESH_CONCURRENCY_GRACE_SECONDS &&
      inRefreshTokenGrant();
    return { ...row.payload, jti: id, ...(consumed !== undefined && !concurrent ? { consumed } : {}) };
  }
}

/** Deletes records expired for longer than the retention (run from time to time). */
export async function purgeExpiredOAuthRecords(db: Queryable, now = new Date()): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM oauth_provider_records WHERE expires_at < $1', [
    new Date(now.getTime() - EXPIRED_RECORD_RETENTION_SECONDS * 1000),
  ]);
  return rowCount;
}
