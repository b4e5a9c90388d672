/**
 * What a listener answers between opening its port and getting its app (`start` listens first so port 0 works):
 * `503` with `Retry-After` and a JSON body at once, so no request hangs while the host starts.
 * @see RFC 9110 §15.6.4 (503 Service Unavailable) and §10.2.3 (Retry-After)
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ServiceStartingError, type ErrorObject } from '../errors.ts';

/** Seconds a client is asked to wait before retrying. */
export const STARTING_RETRY_AFTER_SECONDS = 1;

/** Sends `503` with `Retry-After`, never cached, with `body` as JSON. */
export function sendStarting(res: ServerResponse, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Retry-After': String(STARTING_RETRY_AFTER_SECONDS),
    'Cache-Control': 'no-store',
  });
  res.end(json);
}

/** The host's error envelope for a request that came too early. */
export function startingErrorBody(): { errors: ErrorObject[] } {
  return { errors: new ServiceStartingError().toErrors() };
}

const HEALTH_PATH = /^\/health\/?(\?|$)/i;

/**
 * The host listener until the host is attached: `/health` answers `{"status":"starting","database":…}`
 * (the shape of its `ok` answer), every other path the error envelope.
 */
export function hostStartingListener(database: string): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    sendStarting(res, HEALTH_PATH.test(req.url ?? '') ? { status: 'starting', database } : startingErrorBody());
  };
}

/** The add-on sandbox listener until its app is attached: the error envelope for every path. */
export const sandboxStartingListener: RequestListener = (_req, res) => sendStarting(res, startingErrorBody());
