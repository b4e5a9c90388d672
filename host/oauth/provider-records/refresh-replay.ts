/**
 * A concurrent duplicate of a refresh request gets the same answer. Within the grace period after a
 * refresh token was rotated (REFRESH_CONCURRENCY_GRACE_SECONDS: two tabs, a retried request, two host
 * processes), presenting it again by the same client returns the very access/refresh token pair the
 * first request got, instead of a refusal that would leave that client without tokens.
 *
 * The answer is kept on the consumed refresh token's row, AES-256-GCM sealed under a key derived from
 * that refresh token itself (HKDF-SHA256): the database holds only the token's digest, so a copy of it
 * opens no kept answer; only the token's holder can. Revoking the grant deletes the row, answer included.
 * @see RFC 9700 §4.14.2
 */
import { hkdfSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { createSecretBox, type SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import { recordDigest, REFRESH_CONCURRENCY_GRACE_SECONDS } from './adapter.ts';
import { collectRefreshWrites, sendRefreshWrites } from './refresh-writes.ts';

/** How often a duplicate looks for the first request's answer while that one is still being issued (ms). */
const POLL_MS = 25;

/** The box of one refresh token's kept answer: its key derived from the token. */
function replayBox(refreshToken: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', refreshToken, '', 'addon-kit refresh replay', 32));
  return createSecretBox([{ id: 'rt', key: key.toString('base64') }]);
}

/** Whether the token request in `ctx` is a refresh_token grant presenting a string token. */
function presentedRefreshToken(ctx: KoaContextWithOIDC): string | undefined {
  const params = ctx.oidc?.params;
  if (ctx.oidc?.route !== 'token' || params?.grant_type !== 'refresh_token' || typeof params.refresh_token !== 'string')
    return undefined;
  return params.refresh_token;
}

interface KeptRow {
  consumed_at: Date | null;
  client_id: string | null;
  replay_sealed: string | null;
}

/** The answer of a successful refresh, sealed for the token it consumed. */
function sealAnswer(refreshToken: string, body: unknown): string {
  return replayBox(refreshToken).seal(JSON.stringify(body), recordDigest(refreshToken));
}

/** Keeps the answer of a successful refresh on the token it consumed (when its consume was written already). */
async function keepAnswer(db: Queryable, refreshToken: string, sealed: string): Promise<void> {
  await db.query(
    "UPDATE oauth_provider_records SET replay_sealed = $2 WHERE model = 'RefreshToken' AND id_digest = $1",
    [recordDigest(refreshToken), sealed],
  );
}

/**
 * The kept answer for a duplicate: when the token was consumed within the grace period and belongs to
 * `clientId`; waits for it while the first request is still issuing it, until the grace period ends.
 */
async function keptAnswer(db: Queryable, refreshToken: string, clientId: string): Promise<unknown> {
  const digest = recordDigest(refreshToken);
  for (;;) {
    const { rows } = await db.query<KeptRow>(
      "SELECT consumed_at, payload->>'clientId' AS client_id, replay_sealed FROM oauth_provider_records WHERE model = 'RefreshToken' AND id_digest = $1",
      [digest],
    );
    const row = rows[0];
    if (!row?.consumed_at || row.client_id !== clientId) return undefined;
    if (row.replay_sealed) return JSON.parse(replayBox(refreshToken).open(row.replay_sealed, digest));
    if (Date.now() - row.consumed_at.getTime() >= REFRESH_CONCURRENCY_GRACE_SECONDS * 1000) return undefined;
    await sleep(POLL_MS);
  }
}

/**
 * The oidc-provider (koa) middleware: sends a refresh grant's writes in one statement, with its answer
 * sealed for a concurrent duplicate (as the client receives it, so it must run outside the response
 * shaping), and answers a duplicate refused within the grace period with the kept answer.
 */
export function replayConcurrentRefresh(db: Queryable): Middleware {
  return async (koaCtx, next) => {
    const writes = collectRefreshWrites(koaCtx);
    await next();
    const ctx = koaCtx as unknown as KoaContextWithOIDC;
    const refreshToken = presentedRefreshToken(ctx);
    if (!refreshToken) return;
    const body = ctx.body as { access_token?: unknown; error?: unknown } | undefined;
    if (ctx.status === 200 && body?.access_token) {
      const sealed = sealAnswer(refreshToken, body);
      if (!writes.consume) {
        await sendRefreshWrites(db, writes);
        return keepAnswer(db, refreshToken, sealed);
      }
      if (await sendRefreshWrites(db, writes, sealed)) return;
      // Another request consumed the token since it was read: refused as oidc-provider's own consume would.
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: 'grant request is invalid' };
    }
    // A refused request's collected writes are dropped with it: the token stays unused.
    // The adapter shows a token consumed within the grace period as unconsumed to a refresh grant, so a
    // duplicate gets this far (client authenticated, grant alive) and is refused only by its consume.
    const clientId = ctx.oidc.client?.clientId;
    if (ctx.status !== 400 || (ctx.body as { error?: unknown } | undefined)?.error !== 'invalid_grant' || !clientId)
      return;
    const kept = await keptAnswer(db, refreshToken, clientId);
    if (kept === undefined) return;
    ctx.status = 200;
    ctx.body = kept;
  };
}
