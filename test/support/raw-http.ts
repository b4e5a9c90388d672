/** HTTP requests sent exactly as written (path bytes, headers, body), for hostile-input tests. */
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method?: string;
  /** Sent as is: no normalisation, no percent-encoding. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** One request over a fresh connection; the path and headers reach the server byte for byte. */
export function rawRequest(baseUrl: string, init: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: init.method ?? 'GET',
        path: init.path,
        headers: init.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Writes `text` on a TCP connection and resolves with everything the server sent until it closed (or `waitMs`). */
export function rawExchange(baseUrl: string, text: string | Buffer, waitMs = 2000): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    let out = '';
    const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}
