/**
 * The host's HTTP contract with the host page (README.md §2 and §3), declared once and imported by the
 * host's fetch proxy and handshake, the browser broker and the tests: header names, the two envelopes,
 * the failure body with its sides and codes, and the Authorize popup's start.
 */
import type { FetchTarget, HeaderPairs } from './messages.ts';

/** Request header: the session's CSRF token on every proxied call (and every other fetch/XHR POST the host checks). */
export const CSRF_HEADER = 'X-CSRF-Token';
/** Form field: the session's CSRF token in the Authorize popup's start (a form POST into the popup) and every host form. */
export const CSRF_FORM_FIELD = '_csrf';
/** Request header: the call the add-on wants made, `encodeEnvelope(FetchEnvelope)`. */
export const FETCH_HEADER = 'X-Addon-Fetch';
/** Response header of a relayed upstream answer, `encodeEnvelope(UpstreamEnvelope)`; absent on a proxy failure. */
export const UPSTREAM_HEADER = 'X-Addon-Upstream';

/** The decoded X-Addon-Fetch value (the body travels raw as the request body). */
export interface FetchEnvelope {
  method: string;
  /** Exactly as the add-on gave it: absolute, or a path the proxy resolves. */
  url: string;
  headers: HeaderPairs;
}

/** The decoded X-Addon-Upstream value (the body follows raw). */
export interface UpstreamEnvelope {
  status: number;
  statusText: string;
  url: string;
  headers: HeaderPairs;
}

/** `encodeURIComponent(JSON)`: a header value of ASCII only. */
export function encodeEnvelope(value: FetchEnvelope | UpstreamEnvelope): string {
  return encodeURIComponent(JSON.stringify(value));
}

/** The parsed JSON of an envelope header; throws on a value that is not URI-encoded JSON. Shape unchecked. */
export function decodeEnvelope(header: string): unknown {
  return JSON.parse(decodeURIComponent(header));
}

/** Who failed: the person's host session, the integrator's authorization, the upstream call, or the proxy's policy. */
export const PROXY_ERROR_SIDES = ['host_auth', 'integrator_auth', 'upstream', 'policy'] as const;
/** One of {@link PROXY_ERROR_SIDES}. */
export type ProxyErrorSide = (typeof PROXY_ERROR_SIDES)[number];

/** The proxy's stable failure codes (host/addons/README.md lists when each is sent). */
export const PROXY_ERROR_CODES = [
  'login_required',
  'csrf_failed',
  'installation_not_found',
  'handshake_required',
  'reauthorization_required',
  'not_allowed',
  'invalid_request',
  'body_too_large',
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_refused_address',
  'upstream_redirect',
  'upstream_response_too_large',
  'token_endpoint_unavailable',
  'token_request_refused',
  'internal_error',
] as const;
/** One of {@link PROXY_ERROR_CODES}; `switch (code)` narrows. */
export type ProxyErrorCode = (typeof PROXY_ERROR_CODES)[number];

/** Codes (any side) after which the person must go through the Authorize popup again. */
export const REAUTHORIZATION_CODES: readonly ProxyErrorCode[] = ['reauthorization_required', 'handshake_required'];

/** The body of every proxy failure (a non-200 status, no X-Addon-Upstream). */
export interface ProxyErrorBody {
  error: { side: ProxyErrorSide; code: ProxyErrorCode; message: string; retryable: boolean };
}

/** Path of an installation's browser route: `…/addons/installations/{id}/{rest}`. */
export function installationPath(hostBase: string, installationId: string, rest: string): string {
  return `${hostBase.replace(/\/$/, '')}/addons/installations/${encodeURIComponent(installationId)}/${rest}`;
}

/** The proxy endpoint of an installation and target: `POST …/addons/installations/{id}/fetch/{target}`. */
export function proxyPath(hostBase: string, installationId: string, target: FetchTarget): string {
  return installationPath(hostBase, installationId, `fetch/${target}`);
}
