/** `GET /health`: 200 while the database answers, 503 (not 500) while it does not. */
import type { RequestHandler } from 'express';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';

/** Answers `{status: "ok", database}` or, when `SELECT 1` fails, 503 `{status: "unavailable", database}`. */
export function healthCheck(db: Database, logger: Logger): RequestHandler {
  return async (req, res) => {
    res.set('Cache-Control', 'no-store');
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
