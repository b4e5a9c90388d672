/**
 * The wire protocol between add-on code (a Worker in the sandbox) and the host page broker, and the Authorize
 * popup's report to the page. Both sides import this file and nothing else from each other; see ./README.md
 * for the whole contract.
 */
/** Bumped on any incompatible change; the boot handshake refuses a mismatch. */
export const PROTOCOL_VERSION = 1;
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
};
// ---- validation: anything that does not match is dropped ----
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v) => Number.isSafeInteger(v) && v >= 0;
const isShortString = (v, max = LIMITS.stringBytes) => typeof v === 'string' && v.length <= max;
/** True for a header list within the limits (names are checked by the host's Headers later). */
export function isHeaderPairs(v) {
  if (!Array.isArray(v) || v.length > LIMITS.headerCount) return false;
  return v.every((p) => Array.isArray(p) && p.length === 2 && isShortString(p[0], 256) && isShortString(p[1]));
}
/** Parses a message from the worker; null when it is not a valid one of this protocol version. */
export function parseWorkerMessage(data) {
  if (!isObject(data) || data.v !== 1) return null;
  switch (data.type) {
    case 'hello':
      return Number.isSafeInteger(data.protocol) ? { v: 1, type: 'hello', protocol: data.protocol } : null;
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
export function parseHostMessage(data) {
  if (!isObject(data) || data.v !== 1 || !isId(data.id ?? data.fn)) return null;
  switch (data.type) {
    case 'fetch.head':
      if (!Number.isSafeInteger(data.status) || typeof data.statusText !== 'string' || typeof data.url !== 'string')
        return null;
      return isHeaderPairs(data.headers) ? data : null;
    case 'fetch.chunk':
      return data.chunk instanceof ArrayBuffer ? data : null;
    case 'fetch.end':
      return data;
    case 'fetch.error':
      return typeof data.code === 'string' && typeof data.message === 'string' ? data : null;
    case 'ui.event':
      return Array.isArray(data.args) ? data : null;
    default:
      return null;
  }
}
/** Parses the host's boot message in the sandbox frame. */
export function parseBootMessage(data) {
  if (!isObject(data) || data.type !== 'addon-kit:boot' || data.protocol !== PROTOCOL_VERSION) return null;
  const boot = data.boot;
  if (!isShortString(data.addonUrl) || !isObject(boot)) return null;
  if (!isEnvironment(boot.environment) || !isShortString(boot.extension, 200) || !isObject(boot.props)) return null;
  return data;
}
/** Parses what the sandbox frame tells the host page. */
export function parseSandboxMessage(data) {
  if (!isObject(data)) return null;
  if (data.type === 'addon-kit:sandbox-ready' && Number.isSafeInteger(data.protocol)) return data;
  if (data.type === 'addon-kit:worker-error' && typeof data.message === 'string') {
    return { type: 'addon-kit:worker-error', message: data.message.slice(0, 1000) };
  }
  return null;
}
/** Parses an Authorize popup's report (the caller checks its source window and origin); null when malformed. */
export function parseHandshakeReport(data) {
  if (!isObject(data) || data.type !== 'addon-kit:handshake' || !isShortString(data.installationId, 64)) return null;
  if (data.outcome !== 'authorized' && data.outcome !== 'declined' && data.outcome !== 'failed') return null;
  if (data.outcome !== 'authorized' && data.side !== 'host' && data.side !== 'integrator') return null;
  return data;
}
/** True for one of the three environments. */
export function isEnvironment(v) {
  return v === 'development' || v === 'beta' || v === 'production';
}
