/**
 * One outbound HTTP exchange over node:http(s), so both bodies stream and the connection's address is checked
 * where it is chosen (the `lookup` hook of the keep-alive pool, upstream-pool.ts). Redirects are never followed.
 * A refused address, a timeout before the response head or a network failure rejects with an OutboundError; an
 * error raised by the request body's own stream is passed on as it is (it is the caller's); an HTTP status of any
 * kind is a response, not an error.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { isNonPublicAddress } from './address-policy.ts';
import { RefusedAddressError } from './checked-lookup.ts';
import { OutboundError } from './outbound-error.ts';
import { sharedUpstreamPool, type UpstreamPool } from './upstream-pool.ts';

/** One request toward another server. */
export interface OutboundRequest {
  url: URL;
  method: string;
  headers: [string, string][];
  /** Raw bytes: a stream (sent as it arrives) or a buffer (a replay). */
  body: Readable | Buffer | undefined;
  /** Loopback and private addresses allowed (development integrators, the host itself). */
  allowNonPublic: boolean;
  /** Milliseconds until the response head must have arrived (none: the signal alone ends a slow exchange). */
  timeoutMs?: number;
  /** Aborts the exchange (the caller went away). */
  signal?: AbortSignal;
  /** The keep-alive connections to use (the process's pool unless a test passes its own). */
  pool?: UpstreamPool;
}

/** Methods a server must treat as idempotent (RFC 9110 §9.2.2): safe to send again on a fresh connection. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Sends the request; resolves with the response head (the body still streaming). */
export function sendOutbound(request: OutboundRequest): Promise<IncomingMessage> {
  const { url } = request;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal never goes through the lookup hook: it is checked here.
  if (!request.allowNonPublic && isIP(hostname) && isNonPublicAddress(hostname)) {
    return Promise.reject(new OutboundError('refused_address', `${url.host} is not a public address`));
  }
  // A kept-alive socket the server closed just as it was reused fails before any answer: an exchange whose
  // body is still at hand and whose method is idempotent goes again, once, on a new connection.
  const replayable = !(request.body && !Buffer.isBuffer(request.body)) && IDEMPOTENT.has(request.method.toUpperCase());
  return exchange(request).catch((error: unknown) => {
    if (error instanceof StaleSocketError && replayable) return exchange(request);
    throw error instanceof StaleSocketError ? error.mapped : error;
  });
}

/** A reset on a reused keep-alive socket before the response head. */
class StaleSocketError extends Error {
  constructor(readonly mapped: OutboundError) {
    super(mapped.message);
  }
}

function exchange(request: OutboundRequest): Promise<IncomingMessage> {
  const { url } = request;
  const transport = url.protocol === 'https:' ? https : http;
  const pool = request.pool ?? sharedUpstreamPool;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(url, {
      method: request.method,
      headers: request.headers.reduce<Record<string, string[]>>((all, [name, value]) => {
        (all[name] ??= []).push(value);
        return all;
      }, {}),
      agent: pool.agentFor(url, request.allowNonPublic),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    let bodyFailure: unknown;
    const timer =
      request.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => outgoing.destroy(new OutboundError('timeout', `${url.origin} did not answer in time`)),
            request.timeoutMs,
          );
    outgoing.on('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    outgoing.on('error', (error: Error & { code?: string }) => {
      clearTimeout(timer);
      if (error instanceof OutboundError || (bodyFailure !== undefined && error === bodyFailure)) return reject(error);
      if (error instanceof RefusedAddressError || error.code === 'ADDON_REFUSED_ADDRESS') {
        return reject(new OutboundError('refused_address', `${url.host} resolves to an address that is not public`));
      }
      const unreachable = new OutboundError('unreachable', `${url.origin} cannot be reached`);
      if (outgoing.reusedSocket && !request.signal?.aborted && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
        return reject(new StaleSocketError(unreachable));
      reject(unreachable);
    });
    const { body } = request;
    if (body === undefined) outgoing.end();
    else if (Buffer.isBuffer(body)) outgoing.end(body);
    else {
      body.on('error', (error) => {
        bodyFailure = error;
        outgoing.destroy(error);
      });
      body.pipe(outgoing);
    }
  });
}
