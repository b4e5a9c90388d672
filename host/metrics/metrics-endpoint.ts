/**
 * `GET /metrics`, never public by default: on the host's own port it answers only a `Bearer` token equal to the
 * configured metrics token (404 otherwise, as if there were no such route), and on the separate metrics port — bound
 * where the operator's scraper alone reaches it — without one.
 * @see RFC 6750 §2.1 (Authorization request header field)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { NotFoundError } from '../errors.ts';
import type { HostMetrics } from './host-metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time (of the digests: the token's length is no secret either). */
function sameToken(sent: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(sent), expected);
}

/** The host-port handler: the exposition for the bearer of `token`, 404 for anyone else or when no token is set. */
export function metricsEndpoint(metrics: HostMetrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (req, res) => {
    const sent = /^Bearer (\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!metrics.enabled || !expected || !sent || !sameToken(sent, expected)) throw new NotFoundError();
    const { contentType, body } = await metrics.render();
    res.set({ 'Content-Type': contentType, 'Cache-Control': 'no-store' }).send(body);
  };
}

/** A listener of its own serving `/metrics` (and only that) without a token. */
export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0: a free one) at `bindAddress`. */
export async function listenForMetrics(
  metrics: HostMetrics,
  port: number,
  bindAddress: string,
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?', 1)[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) =>
        res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindAddress, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
