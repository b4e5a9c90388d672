/**
 * authenticatedFetch / authenticatedIntegratorFetch: fetch-shaped calls that go over the bridge to the
 * host proxy, which attaches the credentials. The add-on never sees a token.
 */
import { LIMITS, type FetchTarget, type HeaderPairs, type HostMessage } from '../protocol/messages.ts';
import { onHostMessage, sendToHost } from './channel.ts';
import { SdkFetchError } from './fetch-error.ts';

/** Any absolute URL works here; it only lets `new Request` normalize method, headers and body. */
const PLACEHOLDER = 'https://addon-kit.invalid/';
/** Statuses whose Response must have a null body. @see https://fetch.spec.whatwg.org/#null-body-status */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

interface Pending {
  resolve(response: Response): void;
  reject(reason: unknown): void;
  /** Set once the head arrived and the body is streaming. */
  body?: ReadableStreamDefaultController<Uint8Array> | null;
  method: string;
  done(): void;
}

const pending = new Map<number, Pending>();
let nextId = 1;

/**
 * Calls the host API as the signed-in person (relative URLs resolve against the host API base). The call goes
 * over the bridge to the host's fetch proxy, which checks it against the add-on's allow-list and attaches the
 * host token; the add-on never sees a token. A refusal by the proxy rejects with an `SdkFetchError` (its `side`,
 * `code` and `retryable`); an answer of the API, whatever its status, resolves as a `Response`.
 *
 * @example
 * ```ts
 * import { authenticatedFetch } from '@addon-kit/sdk';
 *
 * const response = await authenticatedFetch('/people/v2/lists/42/people?per_page=100');
 * if (!response.ok) throw new Error(`people of the list: ${response.status}`);
 * const { data } = (await response.json()) as { data: { id: string; attributes: { first_name: string } }[] };
 * ```
 */
export function authenticatedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return bridgedFetch('service', input, init);
}

/**
 * Calls the integrator's API with the stored integrator token (relative URLs: the integrator API base). Only
 * the methods and paths of the add-on config's `integrator_api` allow-list go through; the host refreshes the
 * token ahead of expiry and retries once after a 401. Failures reject as `authenticatedFetch`'s do.
 *
 * @example
 * ```ts
 * import { authenticatedIntegratorFetch } from '@addon-kit/sdk';
 *
 * const response = await authenticatedIntegratorFetch('/api/messages', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ body: 'Practice moves to 7 pm', recipients: ['1', '2'] }),
 * });
 * const message = (await response.json()) as { id: string };
 * ```
 */
export function authenticatedIntegratorFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return bridgedFetch('integrator', input, init);
}

async function bridgedFetch(
  target: FetchTarget,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<Response> {
  // Relative URLs stay relative: the proxy resolves them against the right base, not the worker's blob: URL.
  const url = input instanceof Request ? input.url : input instanceof URL ? input.href : String(input);
  const signal = init?.signal ?? (input instanceof Request ? input.signal : null);
  if (signal?.aborted) throw signal.reason;
  // new Request does what fetch does to method, headers and body (and throws the same TypeErrors).
  const request = new Request(input instanceof Request ? input : PLACEHOLDER, { ...init, signal: null });
  const headers: HeaderPairs = [...request.headers];
  const body = request.body ? await readCapped(request.body) : null;
  if (signal?.aborted) throw signal.reason;
  if (pending.size >= LIMITS.concurrentFetches)
    throw new SdkFetchError('too_many_requests', 'Too many add-on requests in flight', undefined, true);

  const id = nextId++;
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => {
      const entry = pending.get(id);
      if (!entry) return;
      entry.done();
      sendToHost({ v: 1, type: 'fetch.abort', id });
      if (entry.body) entry.body.error(signal!.reason);
      else reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort);
    pending.set(id, {
      resolve,
      reject,
      method: request.method,
      done: () => {
        pending.delete(id);
        signal?.removeEventListener('abort', onAbort);
      },
    });
    sendToHost(
      { v: 1, type: 'fetch.request', id, target, method: request.method, url, headers, body },
      body ? [body] : [],
    );
  });
}

async function readCapped(stream: ReadableStream<Uint8Array>): Promise<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > LIMITS.requestBodyBytes) {
      await reader.cancel();
      throw new SdkFetchError('request_too_large', `Request body exceeds ${LIMITS.requestBodyBytes} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out.buffer;
}

function onHead(entry: Pending, id: number, message: Extract<HostMessage, { type: 'fetch.head' }>): void {
  const headers = new Headers();
  for (const [name, value] of message.headers) {
    try {
      headers.append(name, value);
    } catch {
      // A header the Response constructor cannot hold (invalid name/value) is dropped, as fetch would.
    }
  }
  const nullBody = NULL_BODY.has(message.status) || entry.method === 'HEAD';
  const body = nullBody
    ? null
    : new ReadableStream<Uint8Array>({
        start(controller) {
          entry.body = controller;
        },
        cancel() {
          if (!pending.has(id)) return;
          entry.done();
          sendToHost({ v: 1, type: 'fetch.abort', id });
        },
      });
  entry.body ??= null;
  let response: Response;
  try {
    response = new Response(body, {
      status: message.status,
      statusText: sanitizeStatusText(message.statusText),
      headers,
    });
  } catch {
    entry.done();
    sendToHost({ v: 1, type: 'fetch.abort', id });
    entry.reject(new SdkFetchError('proxy_error', `Unusable upstream status ${message.status}`));
    return;
  }
  // A constructed Response has url ""; the add-on should see the upstream URL like a real fetch.
  Object.defineProperty(response, 'url', { value: message.url, enumerable: true });
  entry.resolve(response);
}

function sanitizeStatusText(text: string): string {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : '';
}

onHostMessage((message) => {
  if (message.type === 'ui.event') return;
  const entry = pending.get(message.id);
  if (!entry) return;
  switch (message.type) {
    case 'fetch.head':
      if (entry.body === undefined) onHead(entry, message.id, message);
      return;
    case 'fetch.chunk':
      entry.body?.enqueue(new Uint8Array(message.chunk));
      return;
    case 'fetch.end':
      entry.done();
      entry.body?.close();
      return;
    case 'fetch.error': {
      entry.done();
      const error = new SdkFetchError(message.code, message.message, message.detail, message.retryable);
      if (entry.body) entry.body.error(error);
      else if (entry.body === undefined) entry.reject(error);
    }
  }
});
