/**
 * Scripted answers for the add-on's calls, keyed by `"METHOD /path"` (optionally `"METHOD /path?query"`),
 * and the default answer for a call nobody scripted.
 */
import type { FetchTarget } from '../protocol/messages.ts';
import type { ProxyErrorSide } from '../protocol/proxy.ts';

/** One call the add-on made through `authenticatedFetch` (`service`) or `authenticatedIntegratorFetch`. */
export interface RecordedRequest {
  target: FetchTarget;
  method: string;
  /** Absolute: a relative URL is resolved against the API base, as the host's proxy does. */
  url: string;
  /** Path and query of `url` (what scripts match). */
  path: string;
  /** As the add-on sent them, names lower-case (the host strips cookie, authorization and hop-by-hop ones). */
  headers: Record<string, string>;
  /** The body as UTF-8 text; null without one. */
  body: string | null;
  /** `scripted`; `not_scripted` (answered 404); `not_allowed` (another origin than the API base: refused). */
  outcome: 'scripted' | 'not_scripted' | 'not_allowed';
}

/** An upstream answer: `json` is sent with `Content-Type: application/json` unless `headers` say otherwise. */
export interface ScriptedResponse {
  status?: number;
  statusText?: string;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Uint8Array;
}

/**
 * No upstream answer: the host's proxy fails the call, and the add-on's fetch rejects with an `SdkFetchError`
 * (`side` gives its code: `policy` → `policy_denied`, `host_auth` → `host_auth_failed`, …; the `code`
 * `reauthorization_required` → `reauthorization_required`). See protocol/README.md §2.
 */
export interface ScriptedFailure {
  fail: ProxyErrorSide;
  code: string;
  message?: string;
  retryable?: boolean;
}

/** A fixed answer, or a function of the request (e.g. to answer page after page, or to check the body). */
export type Responder =
  | ScriptedResponse
  | ScriptedFailure
  | ((request: RecordedRequest) => ScriptedResponse | ScriptedFailure | Promise<ScriptedResponse | ScriptedFailure>);

/** `"GET /people/v2/lists/1/people"` or `"GET /people/v2/lists/1/people?offset=100"` → answer. */
export type ResponseScripts = Record<string, Responder>;

interface Script {
  method: string;
  path: string;
  /** Sorted query pairs when the key has a query (then it must match exactly), else undefined. */
  query: string | undefined;
  responder: Responder;
}

const sortedQuery = (params: URLSearchParams) =>
  [...params]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');

/** Parses the keys once; a malformed key is the test's mistake and throws at start. */
export function compileScripts(scripts: ResponseScripts = {}): (method: string, url: URL) => Responder | undefined {
  const compiled: Script[] = Object.entries(scripts).map(([key, responder]) => {
    const match = /^([A-Za-z]+) (\/\S*)$/.exec(key);
    if (!match) throw new TypeError(`startAddonTest: response key ${JSON.stringify(key)} is not "METHOD /path"`);
    const url = new URL(match[2]!, 'http://key.invalid');
    return {
      method: match[1]!.toUpperCase(),
      path: url.pathname,
      query: match[2]!.includes('?') ? sortedQuery(url.searchParams) : undefined,
      responder,
    };
  });
  return (method, url) => {
    const candidates = compiled.filter((s) => s.method === method && s.path === url.pathname);
    // A key with the request's exact query wins over a key without one.
    return (
      candidates.find((s) => s.query === sortedQuery(url.searchParams)) ?? candidates.find((s) => s.query === undefined)
    )?.responder;
  };
}

/** The answer to a call nobody scripted: a 404 the add-on sees, and `not_scripted` in the test's records. */
export function notScripted(method: string, path: string): ScriptedResponse {
  return {
    status: 404,
    statusText: 'Not Found',
    json: {
      errors: [
        {
          status: '404',
          code: 'not_scripted',
          title: 'Not scripted',
          detail: `No scripted response for ${method} ${path}`,
        },
      ],
    },
  };
}

/** True for a {@link ScriptedFailure}. */
export function isFailure(answer: ScriptedResponse | ScriptedFailure): answer is ScriptedFailure {
  return 'fail' in answer;
}
