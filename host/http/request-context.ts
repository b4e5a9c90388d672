/**
 * A request id on every request (echoed as X-Request-Id) and one log line per response, with the request's trace id
 * (host/tracing) and without query strings.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { logRequest, type Logger } from '../logger.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    req.requestId = randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    // Read now: a router mounted under a prefix (`/addons`) strips it from the request while it handles it.
    const path = req.path;
    // 'close' fires for every response, also when the client hung up before it was sent ('finish' does not).
    res.on('close', () => {
      // The path only: query strings may carry authorization codes or state.
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const aborted = res.writableFinished ? {} : { aborted: true as const };
      const trace = req.traceId ? { traceId: req.traceId } : {};
      logRequest(logger, {
        requestId: req.requestId,
        ...trace,
        method: req.method,
        path,
        status: res.statusCode,
        ms,
        ...aborted,
      });
    });
    next();
  };
}
