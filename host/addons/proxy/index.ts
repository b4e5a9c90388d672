/**
 * The fetch proxy, `POST /addons/installations/{id}/fetch/{service|integrator}`: the server half of
 * authenticatedFetch and authenticatedIntegratorFetch (contract: `@addon-kit/sdk/protocol`, proxy.ts). One file
 * per step, listed here in order, as the handshake lists its steps (see README.md, "How a proxied call flows"):
 *
 * 1  proxy-call.ts      requireProxyCall  the session's person, the installation and the authorization: one statement
 * 2  ../session-gate.ts requireAddonCsrf  the session's token in X-CSRF-Token and the host's exact Origin
 * 3  read-envelope.ts   readEnvelope      the side; 404 for an installation not visible; the FETCH_HEADER envelope
 * 4  check-policy.ts    checkPolicy       the allow-list: where the call goes, its headers; the authorization needed
 * 5  check-access.ts    checkAccess       the organization's access mode still admits the person (read in step 1)
 * 6  limit-body.ts      limitBody         the exchange's deadline and abort; the request body, size-limited
 * 7  attach-token.ts    attachToken       the side's access token, refreshed ahead of expiry
 * 8  send-request.ts    sendRequest       the request upstream: the integrator, or the host's API over loopback
 * 9  retry-once.ts      retryOnce         after an upstream 401: one refresh and one replay, when the body was kept
 * 10 relay.ts           relay             200 with UPSTREAM_HEADER, the body streamed back within the limits
 *
 * Every call is counted in the host's metrics by side and outcome, with the upstream's latency
 * (count-call.ts, installed first so it sees how the call ended).
 *
 * Tokens never reach the browser. A step refuses by throwing an AddonError, rendered as the protocol's
 * ProxyErrorBody by the runtime's addonErrorHandler.
 */
import type { RequestHandler } from 'express';
import { requireAddonCsrf } from '../session-gate.ts';
import { attachToken } from './attach-token.ts';
import { checkAccess } from './check-access.ts';
import { checkPolicy } from './check-policy.ts';
import { countCall } from './count-call.ts';
import { limitBody } from './limit-body.ts';
import type { FetchProxyDeps } from './proxied-call.ts';
import { requireProxyCall } from './proxy-call.ts';
import { readEnvelope } from './read-envelope.ts';
import { relay } from './relay.ts';
import { retryOnce } from './retry-once.ts';
import { sendRequest } from './send-request.ts';

export type { FetchProxyDeps, FetchProxyLimits } from './proxied-call.ts';
export {
  PROXY_CALL_CHANNEL,
  PROXY_CALL_SETTING,
  createProxyCallCache,
  type ProxyCallCache,
} from './proxy-call-cache.ts';

/** The steps of `POST /installations/:id/fetch/:side` (mounted under `/addons`), in order. */
export function fetchProxy(deps: FetchProxyDeps): RequestHandler[] {
  return [
    countCall(deps.metrics),
    requireProxyCall(deps.vault, deps.proxyCalls),
    requireAddonCsrf,
    readEnvelope,
    checkPolicy(deps),
    checkAccess(deps),
    limitBody(deps.limits),
    attachToken(deps.tokens),
    sendRequest(deps.limits),
    retryOnce(deps),
    relay(deps.limits),
  ];
}
