/**
 * Step 5: the exchange begins — its deadline, the abort of the upstream request when the browser's connection
 * ends first, and the request body as a size-limited stream that keeps a copy while it stays under the replay
 * limit (so a 401 can be retried with it).
 */
import type { Request, RequestHandler } from 'express';
import { Transform } from 'node:stream';
import { PolicyError } from '../addon-error.ts';
import { declaredLength } from './fetch-envelope.ts';
import { proxiedOf, type FetchProxyLimits, type ProxyBody } from './proxied-call.ts';

function bodyOf(req: Request, method: string, limits: FetchProxyLimits): ProxyBody {
  if (method === 'GET' || method === 'HEAD') {
    req.resume();
    return { stream: undefined, replay: () => Buffer.alloc(0) };
  }
  const length = declaredLength(req.headers);
  if (length !== undefined && length > limits.maxRequestBytes)
    throw new PolicyError('body_too_large', `The request body exceeds ${limits.maxRequestBytes} bytes`);
  const kept: Buffer[] = [];
  let total = 0;
  let ended = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > limits.maxRequestBytes)
        return callback(new PolicyError('body_too_large', `The request body exceeds ${limits.maxRequestBytes} bytes`));
      if (total <= limits.replayBytes) kept.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      ended = true;
      callback();
    },
  });
  req.on('error', (error) => counter.destroy(error));
  req.pipe(counter);
  return { stream: counter, replay: () => (ended && total <= limits.replayBytes ? Buffer.concat(kept) : undefined) };
}

/** Starts the exchange's deadline and abort, and opens the body (`req.proxied.exchange`). */
export function limitBody(limits: FetchProxyLimits): RequestHandler {
  return (req, res, next) => {
    const call = proxiedOf(req, 'route');
    // The browser may have gone while its person, installation and vault row were read: its 'close' has fired
    // already, so a deadline set now would never be cleared (and would hold a stopping process for its full length).
    if (res.closed) return;
    const deadline = setTimeout(() => {
      req.destroy();
      res.destroy();
    }, limits.totalTimeoutMs);
    // Whenever the browser's connection ends — before the upstream answered, while relaying, or after — the deadline
    // goes, and an unfinished exchange aborts the upstream request (the add-on aborted its fetch, or went away).
    const abort = new AbortController();
    res.once('close', () => {
      clearTimeout(deadline);
      if (!res.writableFinished) abort.abort();
    });
    try {
      call.exchange = { deadline, signal: abort.signal, body: bodyOf(req, call.envelope.method, limits) };
    } catch (error) {
      clearTimeout(deadline);
      throw error;
    }
    next();
  };
}
