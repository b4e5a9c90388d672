/**
 * Step 9: the upstream's answer goes back in the contract's success shape — `200` with UPSTREAM_HEADER (its
 * status line and headers) and the body streamed, decoded, within the response limit. A redirect to another
 * origin is refused (redirects are never followed).
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { RequestHandler, Response } from 'express';
import { UPSTREAM_HEADER } from '@addon-kit/sdk/protocol';
import { UpstreamError } from '../addon-error.ts';
import { encodeUpstream, headerPairs, stripHeaders } from './fetch-envelope.ts';
import { exchangeStep, proxiedOf, type FetchProxyLimits } from './proxied-call.ts';

/** The three fields of the upstream's head the relay reads. */
export interface UpstreamHead {
  location: string | undefined;
  contentLength: string | undefined;
  contentEncoding: string | undefined;
}

/**
 * The fields the relay reads, from the header pairs it relays anyway, exactly as Node's `headers` object gives them:
 * the first `Location` and `Content-Length`, every `Content-Encoding` joined with ", " (building that object too
 * cost a proxied call about as much again as reading the pairs).
 */
export function upstreamHead(pairs: readonly [string, string][]): UpstreamHead {
  let location: string | undefined;
  let contentLength: string | undefined;
  let contentEncoding: string | undefined;
  for (const [name, value] of pairs) {
    if (name === 'location') location ??= value;
    else if (name === 'content-length') contentLength ??= value;
    else if (name === 'content-encoding')
      contentEncoding = contentEncoding === undefined ? value : `${contentEncoding}, ${value}`;
  }
  return { location, contentLength, contentEncoding };
}

/** Streams an upstream response back in the contract's success shape, within the limits. */
function relayResponse(res: Response, upstream: IncomingMessage, publicUrl: URL, limits: FetchProxyLimits): void {
  // The browser left while the upstream answered: 'close' has fired already, so nothing below would free the upstream.
  if (res.closed) {
    upstream.destroy();
    return;
  }
  const pairs = headerPairs(upstream.rawHeaders);
  const head = upstreamHead(pairs);
  const location = head.location;
  if (location && upstream.statusCode && upstream.statusCode >= 300 && upstream.statusCode < 400) {
    let target: URL | undefined;
    try {
      target = new URL(location, publicUrl);
    } catch {
      target = undefined;
    }
    if (!target || target.origin !== publicUrl.origin) {
      upstream.destroy();
      throw new UpstreamError(
        'upstream_redirect',
        'The upstream redirected to another origin; redirects are not followed',
      );
    }
  }
  const declared = Number(head.contentLength);
  if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
    upstream.destroy();
    throw new UpstreamError(
      'upstream_response_too_large',
      `The upstream response exceeds ${limits.maxResponseBytes} bytes`,
    );
  }
  // Bytes are relayed decoded: the browser never sees this response's Content-Encoding (the contract).
  const encoding = String(head.contentEncoding ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const headers = stripHeaders(pairs).filter(([name]) => !(decoder && name === 'content-encoding'));
  // Node's own setters: Express's res.status and res.set check the code and look the type up again, on every call.
  res.statusCode = 200;
  res.setHeader(
    UPSTREAM_HEADER,
    encodeUpstream(upstream.statusCode ?? 502, upstream.statusMessage ?? '', publicUrl.toString(), headers),
  );
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const body: Readable = decoder ? upstream.pipe(decoder) : upstream;
  let total = 0;
  body.on('data', (chunk: Buffer) => {
    total += chunk.length;
    // Past the limit the 200 is already sent: cutting the connection is the only honest signal.
    if (total > limits.maxResponseBytes) {
      upstream.destroy();
      res.destroy();
    }
  });
  upstream.on('error', () => res.destroy());
  body.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  body.pipe(res);
}

/** Relays `req.proxied.upstream`: the last step, it ends the response. */
export function relay(limits: FetchProxyLimits): RequestHandler {
  return exchangeStep(
    async (req, res) => {
      const call = proxiedOf(req, 'route', 'upstream');
      relayResponse(res, call.upstream, call.route.url, limits);
    },
    { ends: true },
  );
}
