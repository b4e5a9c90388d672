/**
 * `GET /health`: 200 while the database answers, 503 (not 500) while it does not, and 503 `draining` once the host
 * is shutting down — while it still serves everything else, so a load balancer's health check moves traffic away
 * before the host stops taking connections.
 */
import type { RequestHandler } from 'express';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';

/** What the health check reads of the host's life: set once shutdown begins. */
export interface HostLifecycle {
  draining: boolean;
}

/**
 * Answers `{status: "ok", database}`; 503 `{status: "draining", database}` once `lifecycle.draining`; 503
 * `{status: "unavailable", database}` when `SELECT 1` fails.
 */
export function healthCheck(
  db: Database,
  logger: Logger,
  lifecycle: HostLifecycle = { draining: false },
): RequestHandler {
  return async (req, res) => {
    res.set('Cache-Control', 'no-store');
    if (lifecycle.draining) {
      res.status(503).set('Retry-After', '5').json({ status: 'draining', database: db.kind });
      return;
    }
    try {
      await db.query('SELECT 1');
    } catch (error) {
      // The cause is the operator's to read (code and message; never parameters, there are none).
      const e = error as { code?: unknown; message?: unknown };
      logger.warn(
        { requestId: req.requestId, code: e?.code, message: e?.message },
        'health check: database unavailable',
      );
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable', database: db.kind });
      return;
    }
    res.json({ status: 'ok', database: db.kind });
  };
}
