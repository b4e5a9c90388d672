/**
 * The wire protocol between add-on code (a Worker in the sandbox) and the host page broker, and the Authorize
 * popup's report to the page. Both sides import this file and nothing else from each other; see ./README.md
 * for the whole contract.
 */

/** Bumped on any incompatible change; the boot handshake refuses a mismatch. */
export const PROTOCOL_VERSION = 1;

/**
 * The two sides of an add-on: the service (the host's API, reached with the host's own OAuth grant) and the
 * integrator (its API, reached with the integrator's grant). Declared once; the host's proxy, token vault,
 * handshake legs and metrics name their side with it.
 */
export type AddonSide = 'service' | 'integrator';

/** Which upstream a fetch goes to: the host API (authenticatedFetch) or the integrator API. */
export type FetchTarget = AddonSide;

/** Header list that keeps repeated names as separate pairs. */
export type HeaderPairs = Array<[name: string, value: string]>;

/** Limits both sides enforce; the host's copy is the one that matters. */
export const LIMITS = {
  /** Largest request body an add-on may send through the bridge. */
  requestBodyBytes: 4 * 1024 * 1024,
  /** Largest serialized UI update (one batch of mutation records). */
  uiMessageBytes: 256 * 1024,
  /** Largest URL, header list or other string field. */
  stringBytes: 16 * 1024,
  /** Most request headers in one call. */
  headerCount: 100,
  /** Most fetches in flight per add-on. */
  concurrentFetches: 32,
} as const;

/** Why a bridged fetch failed; `switch (err.code)` narrows. */
export type FetchFailureCode =
  | 'policy_denied'
  | 'host_auth_failed'
  | 'integrator_auth_failed'
  | 'reauthorization_required'
  | 'upstream_unreachable'
  | 'timeout'
  | 'request_too_large'
  | 'too_many_requests'
  | 'invalid_request'
  | 'unmounted'
  | 'network_error'
  | 'proxy_error';

// ---- worker → host (over the MessagePort) ----

/** First message of the worker: its protocol version. */
export interface HelloMessage {
  v: 1;
  type: 'hello';
  protocol: number;
}
/** A bridged fetch; the body is transferred, not copied. */
export interface FetchRequestMessage {
  v: 1;
  type: 'fetch.request';
  id: number;
  target: FetchTarget;
  method: string;
  url: string;
  headers: HeaderPairs;
  body: ArrayBuffer | null;
}
/** The add-on aborted (signal) or cancelled the body of request `id`. */
export interface FetchAbortMessage {
  v: 1;
  type: 'fetch.abort';
  id: number;
}
/** A batch of remote-dom mutation records; functions were replaced by `{"$fn": id}` references. */
export interface UiMutateMessage {
  v: 1;
  type: 'ui.mutate';
  records: unknown[];
}

export type WorkerMessage = HelloMessage | FetchRequestMessage | FetchAbortMessage | UiMutateMessage;

// ---- host → worker ----

/** Status line and headers of the upstream response; the body follows as chunks. */
export interface FetchHeadMessage {
  v: 1;
  type: 'fetch.head';
  id: number;
  status: number;
  statusText: string;
  url: string;
  headers: HeaderPairs;
}
/** One piece of the upstream body (transferred). */
export interface FetchChunkMessage {
  v: 1;
  type: 'fetch.chunk';
  id: number;
  chunk: ArrayBuffer;
}
/** The upstream body is complete. */
export interface FetchEndMessage {
  v: 1;
  type: 'fetch.end';
  id: number;
}
/** The fetch failed before or while the body was streaming. */
export interface FetchErrorMessage {
  v: 1;
  type: 'fetch.error';
  id: number;
  code: FetchFailureCode;
  message: string;
  /** The proxy's own code (e.g. `token_expired`), when the proxy answered. */
  detail?: string;
  retryable: boolean;
}
/** The person used a control: calls the add-on's function `fn` with plain-data args. */
export interface UiEventMessage {
  v: 1;
  type: 'ui.event';
  fn: number;
  args: unknown[];
}

export type HostMessage = FetchHeadMessage | FetchChunkMessage | FetchEndMessage | FetchErrorMessage | UiEventMessage;

// ---- host page ⇄ sandbox frame (window.postMessage; checked by event.source) ----

/** The sandbox frame's bootstrap is listening. */
export interface SandboxReadyMessage {
  type: 'addon-kit:sandbox-ready';
  protocol: number;
}
/** The host asks the frame to start the add-on's worker and hand it port[0]. */
export interface SandboxBootMessage {
  type: 'addon-kit:boot';
  protocol: number;
  addonUrl: string;
  boot: BootData;
}
/** The worker failed to load or threw (before or after hello). */
export interface SandboxWorkerErrorMessage {
  type: 'addon-kit:worker-error';
  message: string;
}

/** Data the add-on can read synchronously at start. */
export interface BootData {
  environment: AddOnEnvironment;
  extension: string;
  props: Record<string, unknown>;
}

/** Where the add-on runs (from the add-on config's environment). */
export type AddOnEnvironment = 'development' | 'beta' | 'production';

// ---- Authorize popup → the page that opened it (window.postMessage from the host's origin) ----

/** Handshake states of an installation (the host's `addon_authorizations.state`); only `ready` lets the add-on run. */
export type HandshakeState =
  'uninitialized' | 'service_authorized' | 'integrator_pending' | 'ready' | 'reauthorization_required';
/**
 * How the popup's handshake ended: `authorized` (step 6 done; the popup closes), `declined` (the person
 * chose Deny; the popup closes) or `failed` (a step was refused; the popup stays open on its failure page).
 */
export type HandshakeOutcome = 'authorized' | 'declined' | 'failed';
/** Where it was declined or failed: the host's consent (step 1) or the integrator's (step 4) and token endpoint. */
export type HandshakeSide = 'host' | 'integrator';

/** The popup's report; the page trusts only its outcome and side, and re-reads the state from the host. */
export interface HandshakeReportMessage {
  type: 'addon-kit:handshake';
  installationId: string;
  outcome: HandshakeOutcome;
  /** Present unless `authorized`. */
  side?: HandshakeSide;
  /** The state when the popup reported (informational). */
  state: HandshakeState;
  /** A stable code unless `authorized`, e.g. `service_denied`, `integrator_denied`, `state_expired`. */
  error?: string;
}

// ---- validation: anything that does not match is dropped ----

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isShortString = (v: unknown, max: number = LIMITS.stringBytes): v is string =>
  typeof v === 'string' && v.length <= max;

/** True for a header list within the limits (names are checked by the host's Headers later). */
export function isHeaderPairs(v: unknown): v is HeaderPairs {
  if (!Array.isArray(v) || v.length > LIMITS.headerCount) return false;
  return v.every((p) => Array.isArray(p) && p.length === 2 && isShortString(p[0], 256) && isShortString(p[1]));
}

/** Parses a message from the worker; null when it is not a valid one of this protocol version. */
export function parseWorkerMessage(data: unknown): WorkerMessage | null {
  if (!isObject(data) || data.v !== 1) return null;
  switch (data.type) {
    case 'hello':
      return Number.isSafeInteger(data.protocol) ? { v: 1, type: 'hello', protocol: data.protocol as number } : null;
    case 'fetch.request': {
      const { id, target, method, url, headers, body } = data;
      if (!isId(id) || (target !== 'service' && target !== 'integrator')) return null;
      if (!isShortString(method, 32) || !/^[A-Za-z]+$/.test(method) || !isShortString(url) || url.length === 0)
        return null;
      if (!isHeaderPairs(headers)) return null;
      if (body !== null && !(body instanceof ArrayBuffer)) return null;
      return { v: 1, type: 'fetch.request', id, target, method, url, headers, body };
    }
    case 'fetch.abort':
      return isId(data.id) ? { v: 1, type: 'fetch.abort', id: data.id } : null;
    case 'ui.mutate':
      return Array.isArray(data.records) ? { v: 1, type: 'ui.mutate', records: data.records } : null;
    default:
      return null;
  }
}

/** Parses a message from the host; null when it is not a valid one. */
export function parseHostMessage(data: unknown): HostMessage | null {
  if (!isObject(data) || data.v !== 1 || !isId(data.id ?? data.fn)) return null;
  switch (data.type) {
    case 'fetch.head':
      if (!Number.isSafeInteger(data.status) || typeof data.statusText !== 'string' || typeof data.url !== 'string')
        return null;
      return isHeaderPairs(data.headers) ? (data as unknown as FetchHeadMessage) : null;
    case 'fetch.chunk':
      return data.chunk instanceof ArrayBuffer ? (data as unknown as FetchChunkMessage) : null;
    case 'fetch.end':
      return data as unknown as FetchEndMessage;
    case 'fetch.error':
      return typeof data.code === 'string' && typeof data.message === 'string'
        ? (data as unknown as FetchErrorMessage)
        : null;
    case 'ui.event':
      return Array.isArray(data.args) ? (data as unknown as UiEventMessage) : null;
    default:
      return null;
  }
}

/** Parses the host's boot message in the sandbox frame. */
export function parseBootMessage(data: unknown): SandboxBootMessage | null {
  if (!isObject(data) || data.type !== 'addon-kit:boot' || data.protocol !== PROTOCOL_VERSION) return null;
  const boot = data.boot;
  if (!isShortString(data.addonUrl) || !isObject(boot)) return null;
  if (!isEnvironment(boot.environment) || !isShortString(boot.extension, 200) || !isObject(boot.props)) return null;
  return data as unknown as SandboxBootMessage;
}

/** Parses what the sandbox frame tells the host page. */
export function parseSandboxMessage(data: unknown): SandboxReadyMessage | SandboxWorkerErrorMessage | null {
  if (!isObject(data)) return null;
  if (data.type === 'addon-kit:sandbox-ready' && Number.isSafeInteger(data.protocol))
    return data as unknown as SandboxReadyMessage;
  if (data.type === 'addon-kit:worker-error' && typeof data.message === 'string') {
    return { type: 'addon-kit:worker-error', message: data.message.slice(0, 1000) };
  }
  return null;
}

/** Parses an Authorize popup's report (the caller checks its source window and origin); null when malformed. */
export function parseHandshakeReport(data: unknown): HandshakeReportMessage | null {
  if (!isObject(data) || data.type !== 'addon-kit:handshake' || !isShortString(data.installationId, 64)) return null;
  if (data.outcome !== 'authorized' && data.outcome !== 'declined' && data.outcome !== 'failed') return null;
  if (data.outcome !== 'authorized' && data.side !== 'host' && data.side !== 'integrator') return null;
  return data as unknown as HandshakeReportMessage;
}

/** True for one of the three environments. */
export function isEnvironment(v: unknown): v is AddOnEnvironment {
  return v === 'development' || v === 'beta' || v === 'production';
}
