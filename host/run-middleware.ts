/** Runs an Express middleware (a body parser) as a promise: resolved when it calls next(), rejected with its error. */
import type { Request, RequestHandler, Response } from 'express';

export function runMiddleware(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) =>
    middleware(req, res, (error?: unknown) => {
      if (error === undefined || error === null || error === 'route' || error === 'router') resolve();
      else reject(error instanceof Error ? error : new Error('The middleware failed', { cause: error }));
    }),
  );
}
