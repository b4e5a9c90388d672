/**
 * The wire contract between the browser SDK's broker and the fetch proxy:
 * - request header `X-Addon-Fetch: encodeURIComponent(JSON {method, url, headers: [[name, value], …]})`,
 *   the request body being the upstream body's raw bytes;
 * - on success, HTTP 200 with `X-Addon-Upstream: encodeURIComponent(JSON {status, statusText, url,
 *   headers})` and the upstream body raw. Headers travel as pairs so repeated ones survive.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { HTTP_METHODS } from './config.ts';
import { PolicyError } from './addon-error.ts';

/** Request header carrying the call the add-on wants made (lower case, as Node reads it). */
export const FETCH_HEADER = 'x-addon-fetch';
/** Response header carrying the upstream's status line and headers. */
export const UPSTREAM_HEADER = 'X-Addon-Upstream';

const fetchEnvelope = z.strictObject({
  method: z.string().transform((m) => m.toUpperCase()).pipe(z.enum(HTTP_METHODS)),
  url: z.string().min(1).max(8192),
  headers: z.array(z.tuple([z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string().regex(/^[^\r\n\0]*$/)])).max(100).default([]),
});
/** The decoded X-Addon-Fetch value. */
export type FetchEnvelope = z.infer<typeof fetchEnvelope>;

/** Parses the X-Addon-Fetch header; a malformed one is a policy error, never a 500. */
export function parseFetchEnvelope(header: string | undefined): FetchEnvelope {
  if (!header) throw new PolicyError('invalid_request', 'The X-Addon-Fetch header is missing');
  let raw: unknown;
  try {
    raw = JSON.parse(decodeURIComponent(header));
  } catch {
    throw new PolicyError('invalid_request', 'The X-Addon-Fetch header is not URI-encoded JSON');
  }
  const parsed = fetchEnvelope.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new PolicyError('invalid_request', `X-Addon-Fetch ${first.path.join('.') || 'value'}: ${first.message}`);
  }
  return parsed.data;
}

/** RFC 9110 §7.6.1 hop-by-hop headers, plus credentials the proxy owns or must never pass on. */
const STRIPPED = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'host', 'content-length', 'cookie', 'cookie2', 'set-cookie', 'set-cookie2', 'authorization', 'expect',
]);

/** Drops hop-by-hop, cookie and authorization headers, and any named in `Connection`. @see RFC 9110 §7.6.1 */
export function stripHeaders(headers: readonly [string, string][]): [string, string][] {
  const named = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() === 'connection') for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  }
  return headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !STRIPPED.has(lower) && !named.has(lower) && !lower.startsWith('x-addon-');
  });
}

/** A Node response's headers as pairs, repeated headers kept apart. */
export function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return pairs;
}

/** The X-Addon-Upstream value for a response. */
export function encodeUpstream(status: number, statusText: string, url: string, headers: [string, string][]): string {
  return encodeURIComponent(JSON.stringify({ status, statusText, url, headers }));
}

/** Declared request body length, when the browser sent one. */
export function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  return value === undefined ? undefined : Number(value);
}
