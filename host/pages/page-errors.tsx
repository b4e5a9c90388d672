/**
 * The page side of errors that lower layers throw without knowing how they are shown: a browser's form post
 * refused for CSRF gets a page saying what to do; every other error (and every non-page request) goes on to
 * the JSON error handler.
 */
import type { ErrorRequestHandler } from 'express';
import { CsrfRefusedError } from '../auth/csrf.ts';
import { sendMessagePage } from './render.tsx';

/** Renders a CsrfRefusedError of a browser request as the "This form has expired" page (403). */
export const pageErrors: ErrorRequestHandler = (error, _req, res, next) => {
  if (res.headersSent || !(error instanceof CsrfRefusedError) || !error.page) return next(error);
  sendMessagePage(
    res,
    403,
    'This form has expired',
    'The page you sent this from is out of date or came from another site. Go back, reload it and try again.',
  );
};
