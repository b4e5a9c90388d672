/**
 * One upstream HTTP exchange for the fetch proxy and the integrator token requests: host/outbound's
 * `sendOutbound` (the keep-alive pool, the address checked where the socket connects, redirects never followed),
 * its failures said as the proxy's typed errors. An HTTP status of any kind is a response, not an error.
 */
import type { IncomingMessage } from 'node:http';
import { OutboundError, sendOutbound, type OutboundRequest } from '../../outbound/index.ts';
import { AddonError, PolicyError, UpstreamError } from '../addon-error.ts';

/** One request toward an upstream (the integrator, or the host itself over loopback). */
export type UpstreamRequest = OutboundRequest;

/** Sends the request; resolves with the response head (the body still streaming). */
export async function sendUpstream(request: UpstreamRequest): Promise<IncomingMessage> {
  try {
    return await sendOutbound(request);
  } catch (error) {
    throw upstreamErrorOf(error, request.url);
  }
}

/** An outbound failure as the proxy says it; the request body's own typed refusal (its size) passes as it is. */
function upstreamErrorOf(error: unknown, url: URL): AddonError {
  if (error instanceof AddonError) return error;
  if (error instanceof OutboundError) {
    switch (error.code) {
      case 'refused_address':
        return new PolicyError('upstream_refused_address', error.message);
      case 'timeout':
        return new UpstreamError('upstream_timeout', error.message);
      case 'unreachable':
        return new UpstreamError('upstream_unreachable', error.message);
    }
  }
  // The request body failed under the exchange (the browser's upload broke off): nothing reached the upstream.
  return new UpstreamError('upstream_unreachable', `${url.origin} cannot be reached`);
}
