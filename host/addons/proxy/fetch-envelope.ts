/**
 * The proxy's side of the wire contract declared in `@addon-kit/sdk/protocol` (proxy.ts): the
 * FETCH_HEADER envelope checked strictly, request headers stripped, the UPSTREAM_HEADER envelope
 * written. Headers travel as pairs so repeated ones survive.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { decodeEnvelope, encodeEnvelope, FETCH_HEADER, type FetchEnvelope } from '@addon-kit/sdk/protocol';
import { z } from 'zod';
import { HTTP_METHODS } from '../config.ts';
import { PolicyError } from '../addon-error.ts';

const fetchEnvelope = z.strictObject({
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS)),
  url: z.string().min(1).max(8192),
  headers: z
    .array(z.tuple([z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string().regex(/^[^\r\n\0]*$/)]))
    .max(100)
    .default([]),
});
/** The protocol's FetchEnvelope as the proxy checked it: the method upper-cased and one it relays. */
export type CheckedFetchEnvelope = z.infer<typeof fetchEnvelope> & FetchEnvelope;

/** Distinct envelopes kept parsed at most (the oldest goes first). */
export const PARSED_ENVELOPES = 256;

/**
 * Envelopes already checked, by their exact header value: an add-on repeats the same few calls, and checking one is
 * a pure function of the value. Kept frozen, so no step can change what a later call gets.
 */
const parsedEnvelopes = new Map<string, CheckedFetchEnvelope>();

/** Parses the FETCH_HEADER value; a malformed one is a policy error, never a 500. */
export function parseFetchEnvelope(header: string | undefined): CheckedFetchEnvelope {
  if (!header) throw new PolicyError('invalid_request', `The ${FETCH_HEADER} header is missing`);
  const known = parsedEnvelopes.get(header);
  if (known) return known;
  const checked = checkEnvelope(header);
  if (parsedEnvelopes.size >= PARSED_ENVELOPES) parsedEnvelopes.delete(parsedEnvelopes.keys().next().value!);
  parsedEnvelopes.set(header, checked);
  return checked;
}

function checkEnvelope(header: string): CheckedFetchEnvelope {
  let raw: unknown;
  try {
    raw = decodeEnvelope(header);
  } catch {
    throw new PolicyError('invalid_request', `The ${FETCH_HEADER} header is not URI-encoded JSON`);
  }
  const parsed = fetchEnvelope.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new PolicyError('invalid_request', `${FETCH_HEADER} ${first.path.join('.') || 'value'}: ${first.message}`);
  }
  const { headers } = parsed.data;
  for (const pair of headers) Object.freeze(pair);
  Object.freeze(headers);
  return Object.freeze(parsed.data);
}

/**
 * RFC 9110 §7.6.1 hop-by-hop headers, plus credentials the proxy owns or must never pass on; method overrides (a
 * framework honouring one would run a method the allow-list never let through); client-address headers (an add-on
 * must not speak for the person's address); and trace context, which the proxy sends itself.
 */
const STRIPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'cookie',
  'cookie2',
  'set-cookie',
  'set-cookie2',
  'authorization',
  'expect',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'forwarded',
  'x-real-ip',
  'traceparent',
  'tracestate',
]);

/** Drops hop-by-hop, cookie and authorization headers, and any named in `Connection`. @see RFC 9110 §7.6.1 */
export function stripHeaders(headers: readonly [string, string][]): [string, string][] {
  let named: Set<string> | undefined;
  for (const [name, value] of headers) {
    if (name.toLowerCase() === 'connection')
      for (const token of value.split(',')) (named ??= new Set()).add(token.trim().toLowerCase());
  }
  return headers.filter(([name]) => {
    const lower = name.toLowerCase();
    // The contract's own headers (X-Addon-…) never go upstream.
    return !STRIPPED.has(lower) && !named?.has(lower) && !lower.startsWith('x-addon-');
  });
}

/** A Node response's headers as pairs, repeated headers kept apart. */
export function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return pairs;
}

/** The UPSTREAM_HEADER value for a response. */
export function encodeUpstream(status: number, statusText: string, url: string, headers: [string, string][]): string {
  return encodeEnvelope({ status, statusText, url, headers });
}

/** Declared request body length, when the browser sent one. */
export function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  return value === undefined ? undefined : Number(value);
}
