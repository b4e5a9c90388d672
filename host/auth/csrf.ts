/**
 * CSRF protection for every cookie-authenticated POST: the session's token must come back in the
 * `X-CSRF-Token` header or the `_csrf` form field (compared in constant time), and a browser's
 * `Origin`, when sent, must be the host's own.
 */
import { timingSafeEqual } from 'node:crypto';
import { CSRF_FORM_FIELD, CSRF_HEADER } from '@addon-kit/sdk/protocol';
import express, { type RequestHandler } from 'express';
import { runMiddleware } from '../run-middleware.ts';
import { ForbiddenError } from '../errors.ts';
import { getHostSession, hostSessionSettings, wantsPage } from './session.ts';

/**
 * 403 for a POST without the session's CSRF token or from a foreign Origin. `page` says whether a browser
 * sent it (a form post or navigation): the page layer then answers with a page (host/pages/page-errors.tsx),
 * anyone else gets the JSON error body.
 */
export class CsrfRefusedError extends ForbiddenError {
  readonly page: boolean;
  constructor(page: boolean) {
    super('The CSRF token is missing or invalid, or the request came from another origin');
    this.page = page;
  }
}

/** The header (fetch/XHR calls) and form field (server-rendered forms) carrying the token: the protocol's names, one definition. */
export { CSRF_FORM_FIELD as CSRF_FIELD, CSRF_HEADER };

const parseForm = express.urlencoded({ extended: false, limit: '64kb' });

/**
 * Constant-time equality of two tokens. Tokens of different lengths are unequal at once: a length is no secret (every
 * CSRF token is 32 random bytes, 43 characters), and the bytes of equal-length ones are compared without an early exit.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses (403, CsrfRefusedError) a POST whose CSRF token is missing or wrong, or whose `Origin` is foreign. Parses an
 * urlencoded body itself when no parser ran yet, so it can sit before a form route's own handler.
 */
export const requireCsrf: RequestHandler = async (req, res, next) => {
  const { baseOrigin } = hostSessionSettings(req);
  const origin = req.get('origin');
  let ok = origin === undefined || origin === baseOrigin;
  if (ok) {
    if (req.body === undefined && req.is('application/x-www-form-urlencoded')) await runMiddleware(parseForm, req, res);
    const session = await getHostSession(req, res);
    const header = req.get(CSRF_HEADER);
    const field = (req.body as Record<string, unknown> | undefined)?.[CSRF_FORM_FIELD];
    const presented = header ?? (typeof field === 'string' ? field : undefined);
    ok = !!presented && !!session.csrfToken && tokensEqual(presented, session.csrfToken);
  }
  if (ok) return next();
  throw new CsrfRefusedError(wantsPage(req));
};
