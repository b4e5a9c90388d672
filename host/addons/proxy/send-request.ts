/**
 * Step 7: the request goes upstream (upstream/: the integrator over the checked keep-alive pool, the host's own
 * API over its loopback port) with the token as a Bearer credential, the body streaming as it arrives.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import { sendUpstream } from '../upstream/index.ts';
import { exchangeStep, proxiedOf, type FetchProxyLimits, type ProxiedCall } from './proxied-call.ts';

/** One attempt of the call with `token` and `body`; resolves with the upstream's response head. */
export function attempt(
  call: ProxiedCall & Required<Pick<ProxiedCall, 'route' | 'exchange'>>,
  limits: FetchProxyLimits,
  token: string,
  body: Readable | Buffer | undefined,
): Promise<IncomingMessage> {
  return sendUpstream({
    signal: call.exchange.signal,
    url: call.route.target,
    method: call.envelope.method,
    headers: [...call.route.headers, ['authorization', `Bearer ${token}`]],
    body,
    allowNonPublic: call.route.allowNonPublic,
    timeoutMs: limits.headersTimeoutMs,
  });
}

/** Sets `req.proxied.upstream`. */
export function sendRequest(limits: FetchProxyLimits): RequestHandler {
  return exchangeStep(async (req) => {
    const call = proxiedOf(req, 'route', 'exchange', 'token');
    const started = performance.now();
    call.upstream = await attempt(call, limits, call.token, call.exchange.body.stream);
    call.upstreamSeconds = (performance.now() - started) / 1000;
  });
}
