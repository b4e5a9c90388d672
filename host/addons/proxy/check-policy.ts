/**
 * Step 4: the add-on's allow-list decides where the call may go — the integrator's API (integrator-policy.ts:
 * the configured origin and method/path templates) or the host's own API within the add-on's scopes
 * (service-policy.ts, sent over the loopback port) — and the request headers toward it. Then the person's
 * authorization, without which there is no token to attach (`handshake_required`).
 */
import type { RequestHandler } from 'express';
import { traceHeaders } from '../../tracing/index.ts';
import { HandshakeRequiredError } from '../addon-error.ts';
import type { VaultRecord } from '../authorizations/index.ts';
import { proxiedOf, type FetchProxyDeps } from './proxied-call.ts';
import { stripHeaders, type CheckedFetchEnvelope } from './fetch-envelope.ts';
import { checkIntegratorCall } from './integrator-policy.ts';
import { proxyCallOf } from './proxy-call.ts';
import { checkServiceCall } from './service-policy.ts';

/** Headers of the add-on's that the proxy sets itself, or never sends. */
const REPLACED = new Set(['accept-encoding', 'user-agent', 'origin', 'referer']);

/**
 * Common request headers toward any upstream: no credentials, no hop-by-hop, identity encoding (bytes are relayed
 * raw), and the trace of the browser's call (`traceparent`), which the integrator and the host's API continue.
 */
function outgoingHeaders(envelope: CheckedFetchEnvelope, extra: [string, string][]): [string, string][] {
  const kept = stripHeaders(envelope.headers).filter(([name]) => !REPLACED.has(name.toLowerCase()));
  return [...kept, ['accept-encoding', 'identity'], ...Object.entries(traceHeaders()), ...extra];
}

function recordOf(record: VaultRecord | undefined, side: 'host_auth' | 'integrator_auth'): VaultRecord {
  if (!record) throw new HandshakeRequiredError(side);
  return record;
}

/** Checks the call against the allow-list and sets `req.proxied.route`. */
export function checkPolicy(
  deps: Pick<FetchProxyDeps, 'baseUrl' | 'loopback' | 'allowPrivateAddresses'>,
): RequestHandler {
  return async (req, _res, next) => {
    const call = proxiedOf(req);
    const { installation, envelope } = call;
    const stored = proxyCallOf(req).record;
    const headers = outgoingHeaders(envelope, [
      ['user-agent', `addon-kit-addon/${installation.oauthApplicationId} (installation ${installation.id})`],
    ]);
    if (call.target === 'integrator') {
      const url = checkIntegratorCall(installation.integratorApi, envelope.method, envelope.url);
      call.route = {
        url,
        target: url,
        headers,
        // The operator decides, not the tenant: an environment name alone never opens private addresses.
        allowNonPublic: installation.environment === 'development' && deps.allowPrivateAddresses,
        record: recordOf(stored, 'integrator_auth'),
      };
    } else {
      const url = checkServiceCall(deps.baseUrl, installation.scopes, envelope.url);
      const record = recordOf(stored, 'host_auth');
      call.route = {
        url,
        target: new URL(`${url.pathname}${url.search}`, await deps.loopback.origin()),
        headers,
        allowNonPublic: true,
        record,
      };
    }
    next();
  };
}
