/**
 * HTTPS requests to a server whose certificate only `ca` vouches for (a throwaway self-signed one made by a test),
 * over kept-alive connections: a `fetch`-shaped function for the helpers that take one, and a plain `send`.
 */
import { Agent, request } from 'node:https';

export interface HttpsAnswer {
  status: number;
  headers: Headers;
  body: string;
}

export interface HttpsClient {
  /** One request; rejects on a connection error (refused, reset, TLS). */
  send(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<HttpsAnswer>;
  /** `fetch` over the same connections (no redirect is followed; bodies are read whole). */
  fetch: typeof fetch;
  close(): void;
}

/** A client trusting `ca`, keeping up to `maxSockets` connections alive. */
export function httpsClient(ca: string, maxSockets = 16): HttpsClient {
  // A kept-alive connection idle for 5 s is closed here first (the balancer closes its idle ones after 10 s): no
  // request is sent on a connection the server is closing, as browsers avoid it too.
  const agent = new Agent({ ca, keepAlive: true, maxSockets, timeout: 5000 });
  const send: HttpsClient['send'] = (url, init = {}) =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of ([] as string[]).concat(value ?? [])) headers.append(name, v);
          }
          resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks).toString() });
        });
      });
      req.on('error', reject);
      req.end(init.body);
    });
  /** Requests as the test helpers make them: a URL, and a body that is text or form fields, if any. */
  const fetchLike = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body =
      typeof init.body === 'string' || init.body instanceof URLSearchParams ? init.body.toString() : undefined;
    const answer = await send(input.toString(), { method: init.method ?? 'GET', headers, body });
    return new Response([204, 304].includes(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  };
  return { send, fetch: fetchLike as unknown as typeof fetch, close: () => agent.destroy() };
}
