/**
 * The host page's side of the proxy contract (see protocol/README.md): one POST per add-on fetch, with the
 * session cookie (same-origin) and the CSRF header; the upstream status line comes back in X-Addon-Upstream.
 */
import type { FetchFailureCode, FetchTarget, HeaderPairs } from '../protocol/messages.ts';
import { isHeaderPairs } from '../protocol/messages.ts';
import {
  CSRF_HEADER,
  FETCH_HEADER,
  REAUTHORIZATION_CODES,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
  proxyPath,
  type ProxyErrorSide,
} from '../protocol/proxy.ts';

/** What the add-on asked for. */
export interface ProxyRequest {
  target: FetchTarget;
  method: string;
  url: string;
  headers: HeaderPairs;
  body: ArrayBuffer | null;
}

/** Where and as whom to call the proxy. */
export interface ProxyEndpoint {
  /** Origin (and optional path prefix) of the host, e.g. `location.origin`. */
  hostBase: string;
  installationId: string;
  csrfToken: () => string | Promise<string>;
}

/** The upstream answered (any status): its status line, headers and streamed body. */
export interface ProxyResponse {
  ok: true;
  status: number;
  statusText: string;
  url: string;
  headers: HeaderPairs;
  body: ReadableStream<Uint8Array> | null;
}

/** No upstream response: why, in the SDK's terms plus the proxy's own code. */
export interface ProxyFailure {
  ok: false;
  code: FetchFailureCode;
  message: string;
  detail?: string;
  retryable: boolean;
}

const SIDE_CODES: Record<ProxyErrorSide, FetchFailureCode> = {
  policy: 'policy_denied',
  host_auth: 'host_auth_failed',
  integrator_auth: 'integrator_auth_failed',
  upstream: 'upstream_unreachable',
};
const REAUTHORIZE = new Set<string>(REAUTHORIZATION_CODES);

/** Path of the proxy endpoint for one installation and target. */
export function proxyUrl(endpoint: ProxyEndpoint, target: FetchTarget): string {
  return proxyPath(endpoint.hostBase, endpoint.installationId, target);
}

/** Calls the proxy; rejects only when `signal` aborts. */
export async function proxyFetch(
  endpoint: ProxyEndpoint,
  request: ProxyRequest,
  signal: AbortSignal,
): Promise<ProxyResponse | ProxyFailure> {
  const describe = encodeEnvelope({ method: request.method, url: request.url, headers: request.headers });
  const headers: Record<string, string> = { [CSRF_HEADER]: await endpoint.csrfToken(), [FETCH_HEADER]: describe };
  if (request.body) headers['Content-Type'] = 'application/octet-stream';
  let response: Response;
  try {
    response = await fetch(proxyUrl(endpoint, request.target), {
      method: 'POST',
      credentials: 'same-origin',
      headers,
      body: request.body,
      signal,
      redirect: 'error',
      cache: 'no-store',
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return {
      ok: false,
      code: 'network_error',
      message: `Host proxy unreachable: ${(error as Error).message}`,
      retryable: true,
    };
  }
  const upstream = response.headers.get(UPSTREAM_HEADER);
  if (response.status === 200 && upstream) {
    const head = parseUpstream(upstream);
    if (head) return { ok: true, ...head, body: response.body };
    await response.body?.cancel();
    return { ok: false, code: 'proxy_error', message: `Malformed ${UPSTREAM_HEADER} header`, retryable: false };
  }
  return failureFrom(response);
}

function parseUpstream(header: string): Omit<ProxyResponse, 'ok' | 'body'> | null {
  try {
    const v = decodeEnvelope(header) as Record<string, unknown>;
    if (
      !Number.isSafeInteger(v.status) ||
      typeof v.statusText !== 'string' ||
      typeof v.url !== 'string' ||
      !isHeaderPairs(v.headers)
    )
      return null;
    return { status: v.status as number, statusText: v.statusText, url: v.url, headers: v.headers };
  } catch {
    return null;
  }
}

async function failureFrom(response: Response): Promise<ProxyFailure> {
  let error: Record<string, unknown> | undefined;
  try {
    error = ((await response.json()) as { error?: Record<string, unknown> }).error;
  } catch {
    error = undefined;
  }
  if (!error || typeof error.code !== 'string') {
    const code: FetchFailureCode =
      response.status === 401 || response.status === 403 ? 'host_auth_failed' : 'proxy_error';
    return { ok: false, code, message: `Host proxy answered ${response.status}`, retryable: response.status >= 500 };
  }
  const side = SIDE_CODES[error.side as ProxyErrorSide] ?? 'proxy_error';
  return {
    ok: false,
    code: REAUTHORIZE.has(error.code) ? 'reauthorization_required' : side,
    message: typeof error.message === 'string' ? error.message : error.code,
    detail: error.code,
    retryable: error.retryable === true,
  };
}
