/**
 * The writes of one refresh_token grant in one statement. oidc-provider consumes the presented refresh
 * token, then saves the new refresh token and the new access token, each through the adapter: three
 * round trips, plus the answer kept for a concurrent duplicate (refresh-replay.ts). Within a refresh
 * grant the adapter records them here instead, and the replay middleware sends them together — before
 * the response leaves, so the client never holds tokens the database does not.
 *
 * The new records are written only when the consume takes: of two requests presenting the same token,
 * the one whose consume finds it already used writes nothing and is refused (invalid_grant).
 * @see RFC 9700 §4.14.2 (refresh token rotation), RFC 6749 §6
 */
import type { Queryable } from '../../db/database.ts';

/** One oauth_provider_records row to insert or replace. */
export interface ProviderRecord {
  model: string;
  id_digest: string;
  payload: Record<string, unknown>;
  grant_id: string | null;
  uid: string | null;
  expires_at: Date | null;
}

/** What a refresh grant would have written so far: at most one consume, and the records saved (last save wins). */
export interface RefreshWrites {
  consume?: { model: string; id_digest: string; at: Date };
  records: Map<string, ProviderRecord>;
}

const pending = new WeakMap<object, RefreshWrites>();

/** Starts collecting the adapter's writes for the request `ctx` (the koa context oidc-provider runs in). */
export function collectRefreshWrites(ctx: object): RefreshWrites {
  const writes: RefreshWrites = { records: new Map() };
  pending.set(ctx, writes);
  return writes;
}

/** The writes being collected for `ctx`; undefined when nobody will send them (write at once then). */
export function refreshWritesOf(ctx: object | undefined): RefreshWrites | undefined {
  return ctx ? pending.get(ctx) : undefined;
}

/** Records a save of `record`, replacing an earlier save of the same record. */
export function addRecord(writes: RefreshWrites, record: ProviderRecord): void {
  writes.records.set(`${record.model}\u0000${record.id_digest}`, record);
}

const UPSERT = `INSERT INTO oauth_provider_records (model, id_digest, payload, grant_id, uid, expires_at)
  SELECT r.model, r.id_digest, r.payload, r.grant_id, r.uid, r.expires_at
  FROM jsonb_to_recordset($1::jsonb) AS r(model text, id_digest text, payload jsonb, grant_id text, uid text,
                                          expires_at timestamptz)`;
/** How a save replaces the record already stored (the adapter's single saves use it too). */
export const ON_CONFLICT = `ON CONFLICT (model, id_digest) DO UPDATE SET payload = EXCLUDED.payload,
  grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`;

/**
 * Sends the collected writes in one statement; `replaySealed` is kept on the consumed token for a
 * concurrent duplicate. False when the consume found the token already used: then nothing was written.
 */
export async function sendRefreshWrites(
  db: Queryable,
  writes: RefreshWrites,
  replaySealed: string | null = null,
): Promise<boolean> {
  const records = JSON.stringify([...writes.records.values()]);
  const { consume } = writes;
  writes.records.clear();
  delete writes.consume;
  if (!consume) {
    if (records !== '[]') await db.query(`${UPSERT} ${ON_CONFLICT}`, [records]);
    return true;
  }
  const { rows } = await db.query<{ consumed: number }>(
    `WITH consumed AS (
       UPDATE oauth_provider_records SET consumed_at = $2, replay_sealed = $3
       WHERE model = $4 AND id_digest = $5 AND consumed_at IS NULL RETURNING 1
     ), saved AS (
       ${UPSERT} WHERE EXISTS (SELECT 1 FROM consumed) ${ON_CONFLICT}
     )
     SELECT count(*)::int AS consumed FROM consumed`,
    [records, consume.at, replaySealed, consume.model, consume.id_digest],
  );
  return rows[0]!.consumed === 1;
}
