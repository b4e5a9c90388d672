/**
 * Cookie authentication of the add-on runtime's JSON routes: the person's host session, and for every
 * POST the session's CSRF token in `X-CSRF-Token` plus an `Origin` exactly equal to the host's (a
 * browser always sends Origin on a cross-origin or POST fetch, so a missing one is refused too).
 * Failures render as the proxy's typed envelope, never as a page.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { CSRF_HEADER } from '@addon-kit/sdk/protocol';
import { tokensEqual } from '../auth/csrf.ts';
import { hostSessionPerson, hostSessionSettings, readHostSession } from '../auth/session.ts';
import type { SessionPersonExtra } from '../auth/host-sessions.ts';
import type { PersonRecord } from '../auth/person.ts';
import { InternalServerError } from '../errors.ts';
import { toHostError } from '../http/error-handler.ts';
import type { Logger } from '../logger.ts';
import { AddonError } from './addon-error.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The logged-in person of an add-on runtime route. */
      addonPerson?: PersonRecord;
    }
  }
}

/** The answer to a request without a logged-in, active person of a live host session. */
function loginRequired(): AddonError {
  return new AddonError(401, 'host_auth', 'login_required', 'Log in to the host first', false);
}

/**
 * The logged-in, active person of a live (unrevoked) host session, with what `extra` reads in the same statement
 * (see `loadSessionPerson`), kept as `req.addonPerson`; 401 `login_required` otherwise.
 */
export async function loadAddonPerson<T extends object = object>(
  req: Request,
  res: Response,
  extra?: SessionPersonExtra,
): Promise<PersonRecord & T> {
  const person = await hostSessionPerson<T>(req, res, extra);
  if (!person || person.status !== 'active') throw loginRequired();
  req.addonPerson = person;
  return person;
}

/** Requires a logged-in, active person of a live (unrevoked) host session (401 `login_required`). */
export function requireAddonSession(): RequestHandler {
  return async (req, res, next) => {
    await loadAddonPerson(req, res);
    next();
  };
}

/** Requires the exact host Origin and the session's CSRF token (403 `csrf_failed`). */
export const requireAddonCsrf: RequestHandler = async (req, res, next) => {
  const { baseOrigin } = hostSessionSettings(req);
  const session = await readHostSession(req, res);
  const presented = req.get(CSRF_HEADER);
  const ok =
    req.get('origin') === baseOrigin && !!presented && !!session.csrfToken && tokensEqual(presented, session.csrfToken);
  if (!ok)
    throw new AddonError(
      403,
      'host_auth',
      'csrf_failed',
      `The ${CSRF_HEADER} header or the Origin does not match this session`,
      false,
    );
  next();
};

/** The person `requireAddonSession` loaded. */
export function addonPersonOf(req: Request): PersonRecord {
  if (!req.addonPerson) throw loginRequired();
  return req.addonPerson;
}

/** Renders AddonErrors (and anything unexpected) as the typed `{error}` envelope. */
export function addonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (!(error instanceof AddonError)) {
      const e = error as { type?: string };
      // Bad input (a broken body, a path that does not decode, a NUL character) is the caller's mistake, not ours.
      const hostError = toHostError(error);
      if (hostError instanceof InternalServerError)
        logger.error({ requestId: req.requestId, err: error }, 'add-on runtime error');
      const typed =
        e?.type === 'entity.too.large'
          ? new AddonError(413, 'policy', 'body_too_large', 'The request body is larger than this host accepts', false)
          : hostError instanceof InternalServerError
            ? new AddonError(500, 'upstream', 'internal_error', 'An internal error occurred in the host', true)
            : new AddonError(hostError.status, 'policy', 'invalid_request', hostError.detail, false);
      res.status(typed.status).json(typed.toJSON());
      return;
    }
    res.status(error.status).json(error.toJSON());
  };
}
