/**
 * Headers on every response of the host, set before any route runs so that errors, the OAuth provider's answers
 * and 404s carry them too (a route may still choose its own):
 * - `X-Content-Type-Options: nosniff`: browsers take each body for the type it is declared as;
 * - `Referrer-Policy: same-origin`: no URL of the host (query strings hold client ids, states, redirect URIs) is
 *   sent to another site when a person follows a link or is redirected away;
 * - `Strict-Transport-Security` when the base URL is https: browsers never again try the host over plain http.
 * @see RFC 6797 §6.1 (Strict-Transport-Security)
 */
import type { RequestHandler } from 'express';

/** One year, the value browsers' preload lists ask for. */
export const HSTS_MAX_AGE_SECONDS = 31_536_000;

/** The middleware for a host whose public URL is `baseUrl`. */
export function baselineHeaders(baseUrl: string): RequestHandler {
  const headers: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    ...(baseUrl.startsWith('https:') ? { 'Strict-Transport-Security': `max-age=${HSTS_MAX_AGE_SECONDS}` } : {}),
  };
  const entries = Object.entries(headers);
  return (_req, res, next) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}
