/**
 * Step 8: after an upstream 401, one refresh and one retry — when the request body was small enough to keep for a
 * replay. When it was not, the 401 is relayed, and the token refreshed now so the add-on's own retry can succeed.
 */
import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import type { RefreshEngine } from '../tokens/index.ts';
import { tokenFor } from './attach-token.ts';
import { exchangeStep, proxiedOf, type FetchProxyLimits } from './proxied-call.ts';
import { attempt } from './send-request.ts';

/** Resolves once the request body has been read to its end (or failed). */
function drained(stream: Readable | undefined): Promise<void> {
  return new Promise<void>((resolve) =>
    stream && !stream.readableEnded ? stream.once('end', resolve).once('close', resolve).resume() : resolve(),
  );
}

/** Replaces `req.proxied.upstream` after a 401 when the call can be sent again. */
export function retryOnce(deps: { tokens: RefreshEngine; limits: FetchProxyLimits }): RequestHandler {
  return exchangeStep(async (req) => {
    const call = proxiedOf(req, 'route', 'exchange', 'token', 'upstream');
    if (call.upstream.statusCode !== 401) return;
    // Let the request finish streaming so we know whether it can be replayed.
    await drained(call.exchange.body.stream);
    const replay = call.exchange.body.replay();
    if (replay === undefined) {
      await tokenFor(deps.tokens, call, call.token).catch(() => undefined);
      return;
    }
    call.upstream.resume();
    call.token = await tokenFor(deps.tokens, call, call.token);
    const method = call.envelope.method;
    call.upstream = await attempt(
      call,
      deps.limits,
      call.token,
      method === 'GET' || method === 'HEAD' ? undefined : replay,
    );
  });
}
