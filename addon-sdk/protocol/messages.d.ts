/**
 * The wire protocol between add-on code (a Worker in the sandbox) and the host page broker, and the Authorize
 * popup's report to the page. Both sides import this file and nothing else from each other; see ./README.md
 * for the whole contract.
 */
/** Bumped on any incompatible change; the boot handshake refuses a mismatch. */
export declare const PROTOCOL_VERSION = 1;
/** Which upstream a fetch goes to: the host API (authenticatedFetch) or the integrator API. */
export type FetchTarget = 'service' | 'integrator';
/** Header list that keeps repeated names as separate pairs. */
export type HeaderPairs = Array<[name: string, value: string]>;
/** Limits both sides enforce; the host's copy is the one that matters. */
export declare const LIMITS: {
  /** Largest request body an add-on may send through the bridge. */
  readonly requestBodyBytes: number;
  /** Largest serialized UI update (one batch of mutation records). */
  readonly uiMessageBytes: number;
  /** Largest URL, header list or other string field. */
  readonly stringBytes: number;
  /** Most request headers in one call. */
  readonly headerCount: 100;
  /** Most fetches in flight per add-on. */
  readonly concurrentFetches: 32;
};
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
/** The proxy's failure sides (contract: the `side` of a proxy error body). */
export type ProxySide = 'host_auth' | 'integrator_auth' | 'upstream' | 'policy';
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
/** True for a header list within the limits (names are checked by the host's Headers later). */
export declare function isHeaderPairs(v: unknown): v is HeaderPairs;
/** Parses a message from the worker; null when it is not a valid one of this protocol version. */
export declare function parseWorkerMessage(data: unknown): WorkerMessage | null;
/** Parses a message from the host; null when it is not a valid one. */
export declare function parseHostMessage(data: unknown): HostMessage | null;
/** Parses the host's boot message in the sandbox frame. */
export declare function parseBootMessage(data: unknown): SandboxBootMessage | null;
/** Parses what the sandbox frame tells the host page. */
export declare function parseSandboxMessage(data: unknown): SandboxReadyMessage | SandboxWorkerErrorMessage | null;
/** Parses an Authorize popup's report (the caller checks its source window and origin); null when malformed. */
export declare function parseHandshakeReport(data: unknown): HandshakeReportMessage | null;
/** True for one of the three environments. */
export declare function isEnvironment(v: unknown): v is AddOnEnvironment;
