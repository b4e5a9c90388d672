/**
 * The host page broker: the other end of the add-on's MessagePort. It validates every message, enforces the
 * size and concurrency caps, turns fetch requests into proxy calls, streams bodies back, and forwards UI
 * batches to the renderer. Unknown or malformed messages are dropped.
 */
import {
  LIMITS,
  parseWorkerMessage,
  type FetchErrorMessage,
  type FetchRequestMessage,
  type HostMessage,
  type WorkerMessage,
} from '../protocol/messages.ts';
import { proxyFetch, type ProxyEndpoint } from './proxy-fetch.ts';

/** Something a host may want to log or test: each settled fetch, dropped messages, UI rejections. */
export type BrokerEvent =
  | {
      type: 'fetch';
      id: number;
      target: string;
      outcome: 'response' | 'aborted' | FetchErrorMessage['code'];
      status?: number;
    }
  | { type: 'dropped'; reason: string };

export interface BrokerOptions {
  endpoint: ProxyEndpoint;
  /** Time allowed until the upstream status line arrives. */
  timeoutMs: number;
  onUiRecords(records: unknown[]): void;
  onReauthorizationRequired(): void;
  onEvent(event: BrokerEvent): void;
}

/** A running broker; `close()` fails every in-flight call with `unmounted` and aborts its proxy request. */
export interface Broker {
  post(message: HostMessage, transfer?: Transferable[]): void;
  handle(data: unknown): void;
  close(): void;
}

/** Creates the broker for one mounted add-on. */
export function createBroker(port: MessagePort, options: BrokerOptions): Broker {
  const inflight = new Map<number, { controller: AbortController; target: string }>();
  let closed = false;

  const post = (message: HostMessage, transfer: Transferable[] = []) => {
    if (!closed) port.postMessage(message, transfer);
  };

  const fail = (
    request: Pick<FetchRequestMessage, 'id' | 'target'>,
    code: FetchErrorMessage['code'],
    message: string,
    detail?: string,
    retryable = false,
  ) => {
    post({ v: 1, type: 'fetch.error', id: request.id, code, message, ...(detail ? { detail } : {}), retryable });
    options.onEvent({ type: 'fetch', id: request.id, target: request.target, outcome: code });
  };

  function handle(data: unknown): void {
    if (closed) return;
    const message: WorkerMessage | null = parseWorkerMessage(data);
    if (!message) return options.onEvent({ type: 'dropped', reason: 'invalid message' });
    switch (message.type) {
      case 'fetch.request':
        void runFetch({ inflight, post, fail, options }, message);
        return;
      case 'fetch.abort': {
        const entry = inflight.get(message.id);
        if (!entry) return;
        inflight.delete(message.id);
        entry.controller.abort(new DOMException('Aborted by the add-on', 'AbortError'));
        options.onEvent({ type: 'fetch', id: message.id, target: entry.target, outcome: 'aborted' });
        return;
      }
      case 'ui.mutate':
        if (JSON.stringify(message.records).length > LIMITS.uiMessageBytes)
          return options.onEvent({ type: 'dropped', reason: 'ui batch too large' });
        return options.onUiRecords(message.records);
      case 'hello':
        return options.onEvent({ type: 'dropped', reason: 'repeated hello' });
    }
  }

  return {
    post,
    handle,
    close() {
      for (const [id, entry] of inflight) {
        post({
          v: 1,
          type: 'fetch.error',
          id,
          code: 'unmounted',
          message: 'The add-on was unmounted',
          retryable: false,
        });
        options.onEvent({ type: 'fetch', id, target: entry.target, outcome: 'unmounted' });
        entry.controller.abort(new DOMException('Unmounted', 'AbortError'));
      }
      inflight.clear();
      closed = true;
      port.close();
    },
  };
}

/** What a fetch of the add-on shares with its broker: the requests in flight and how to answer. */
interface FetchContext {
  inflight: Map<number, { controller: AbortController; target: string }>;
  post: (message: HostMessage, transfer?: Transferable[]) => void;
  fail: (
    request: Pick<FetchRequestMessage, 'id' | 'target'>,
    code: FetchErrorMessage['code'],
    message: string,
    detail?: string,
    retryable?: boolean,
  ) => void;
  options: BrokerOptions;
}

/**
 * One fetch of the add-on through the host's proxy: refused when a duplicate, too large or one too many; else sent
 * with the broker's timeout, its answer relayed, and a failure answered once (an abort was answered already).
 */
async function runFetch(ctx: FetchContext, request: FetchRequestMessage): Promise<void> {
  const { inflight, post, fail, options } = ctx;
  if (inflight.has(request.id)) return options.onEvent({ type: 'dropped', reason: 'duplicate request id' });
  if (request.body && request.body.byteLength > LIMITS.requestBodyBytes) {
    return fail(request, 'request_too_large', `Request body exceeds ${LIMITS.requestBodyBytes} bytes`);
  }
  if (inflight.size >= LIMITS.concurrentFetches)
    return fail(request, 'too_many_requests', 'Too many add-on requests in flight', undefined, true);
  const controller = new AbortController();
  inflight.set(request.id, { controller, target: request.target });
  const timer = setTimeout(() => controller.abort(new DOMException('Timed out', 'TimeoutError')), options.timeoutMs);
  try {
    const result = await proxyFetch(options.endpoint, request, controller.signal);
    clearTimeout(timer);
    if (!result.ok) {
      inflight.delete(request.id);
      if (result.code === 'reauthorization_required') options.onReauthorizationRequired();
      return fail(request, result.code, result.message, result.detail, result.retryable);
    }
    await relayResponse(result, request, post, options);
    inflight.delete(request.id);
    post({ v: 1, type: 'fetch.end', id: request.id });
  } catch (error) {
    clearTimeout(timer);
    // Aborted by the add-on or by close(): both already answered; a timeout still needs an answer.
    if (!inflight.delete(request.id)) return;
    const timedOut =
      controller.signal.reason instanceof DOMException && controller.signal.reason.name === 'TimeoutError';
    if (timedOut) fail(request, 'timeout', 'The upstream did not answer in time', undefined, true);
    else fail(request, 'network_error', `Proxy stream failed: ${(error as Error).message}`, undefined, true);
  }
}

/** Relays an upstream answer to the add-on: its head, then its body chunk by chunk (each buffer transferred). */
async function relayResponse(
  result: Extract<Awaited<ReturnType<typeof proxyFetch>>, { ok: true }>,
  request: FetchRequestMessage,
  post: (message: HostMessage, transfer?: Transferable[]) => void,
  options: BrokerOptions,
): Promise<void> {
  post({
    v: 1,
    type: 'fetch.head',
    id: request.id,
    status: result.status,
    statusText: result.statusText,
    url: result.url,
    headers: result.headers,
  });
  options.onEvent({
    type: 'fetch',
    id: request.id,
    target: request.target,
    outcome: 'response',
    status: result.status,
  });
  if (!result.body) return;
  const reader = result.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = value.buffer.byteLength === value.byteLength ? value.buffer : value.slice().buffer;
    post({ v: 1, type: 'fetch.chunk', id: request.id, chunk: chunk as ArrayBuffer }, [chunk as ArrayBuffer]);
  }
}
