/**
 * One upstream HTTP exchange for the fetch proxy, over node:http(s) so both bodies stream and the
 * connection's address can be checked where it is chosen (the `lookup` hook). Redirects are never
 * followed. A timeout before the response head, a refused address or a network failure becomes a
 * typed error; an HTTP status of any kind is a response, not an error.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { PolicyError, UpstreamError } from './addon-error.ts';
import { isNonPublicAddress } from './address-policy.ts';

/** One request toward an upstream. */
export interface UpstreamRequest {
  url: URL;
  method: string;
  headers: [string, string][];
  /** Raw bytes: a stream (sent as it arrives) or a buffer (a replay). */
  body: Readable | Buffer | undefined;
  /** Loopback and private addresses allowed (development integrators, the host itself). */
  allowNonPublic: boolean;
  /** Milliseconds until the response head must have arrived. */
  timeoutMs: number;
  /** Aborts the exchange (the browser went away). */
  signal?: AbortSignal;
}

class RefusedAddress extends Error {
  readonly code = 'ADDON_REFUSED_ADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Resolves like dns.lookup, refusing non-public addresses when they are not allowed. */
function checkedLookup(allowNonPublic: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowNonPublic && addresses.some((a) => isNonPublicAddress(a.address))) return callback(new RefusedAddress(hostname), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Sends the request; resolves with the response head (the body still streaming). */
export function sendUpstream(request: UpstreamRequest): Promise<IncomingMessage> {
  const { url } = request;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (!request.allowNonPublic && isIP(hostname) && isNonPublicAddress(hostname)) {
    return Promise.reject(new PolicyError('upstream_refused_address', `${url.host} is not a public address`));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(url, {
      method: request.method,
      headers: request.headers.reduce<Record<string, string[]>>((all, [name, value]) => {
        (all[name] ??= []).push(value);
        return all;
      }, {}),
      lookup: checkedLookup(request.allowNonPublic) as never,
      agent: false,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const timer = setTimeout(() => outgoing.destroy(new UpstreamError('upstream_timeout', `${url.origin} did not answer in time`)), request.timeoutMs);
    outgoing.on('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    outgoing.on('error', (error: Error & { code?: string }) => {
      clearTimeout(timer);
      if (error instanceof UpstreamError || error instanceof PolicyError) return reject(error);
      if (error instanceof RefusedAddress || error.code === 'ADDON_REFUSED_ADDRESS') {
        return reject(new PolicyError('upstream_refused_address', `${url.host} resolves to an address that is not public`));
      }
      reject(new UpstreamError('upstream_unreachable', `${url.origin} cannot be reached`));
    });
    const { body } = request;
    if (body === undefined) outgoing.end();
    else if (Buffer.isBuffer(body)) outgoing.end(body);
    else {
      body.on('error', (error) => outgoing.destroy(error));
      body.pipe(outgoing);
    }
  });
}
