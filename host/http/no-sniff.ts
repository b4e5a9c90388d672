/** `X-Content-Type-Options: nosniff` on every response: browsers take each body for the type it is declared as. */
import type { RequestHandler } from 'express';

/** Sets the header before any route runs, so errors, the OAuth provider's answers and 404s carry it too. */
export const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};
