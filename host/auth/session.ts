/**
 * The host login session: an iron-session sealed cookie holding who is logged in, the session's id and its
 * CSRF token, backed by a server-side record (host/auth/host-sessions.ts) so a session can be revoked: a cookie
 * counts only while its record is live. Every host process reads both, so several processes share sessions.
 */
import { CSRF_HEADER } from '@addon-kit/sdk/protocol';
import { randomBytes } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import { getIronSession, type IronSession, type SessionOptions } from 'iron-session';
import type { HostConfig } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import { UnauthorizedError } from '../errors.ts';
import {
  createSessionRecord,
  loadSessionPerson,
  newSessionId,
  revokeSession,
  type SessionPersonExtra,
} from './host-sessions.ts';
import type { PersonRecord } from './person.ts';
import { cookieSeal, openSealedCookie } from './sealed-cookie.ts';
import { createUnsealedSessions, type UnsealedSessions } from './unsealed-sessions.ts';

/** Name of the host session cookie. */
export const HOST_SESSION_COOKIE = 'addon_kit_session';
/** A login lasts 12 hours. */
const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** What the sealed session cookie holds. */
export interface HostSessionData {
  /** The logged-in person; absent before login. */
  personId?: string;
  /**
   * Id of the server-side session record; a cookie without one (sealed before sessions were recorded) is
   * logged out.
   */
  sessionId?: string;
  /** Double-submit token every cookie-authenticated POST must echo. */
  csrfToken?: string;
  /** Unix seconds of the last password check (`prompt=login`, max_age). */
  authenticatedAt?: number;
}

/** A loaded host session: its data plus `save()` and `destroy()`. */
export type HostSession = IronSession<HostSessionData>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `getHostSession` (cached per request). */
      hostSession?: HostSession;
      /** Set by `readHostSession` when it answered from a kept unseal, without a session object. */
      hostSessionData?: Readonly<HostSessionData>;
      /** Set by `requireHostLogin`: the logged-in person, loaded fresh. */
      hostPerson?: PersonRecord;
    }
  }
}

interface HostSessionSettings {
  options: SessionOptions;
  db: Queryable;
  baseOrigin: string;
  /** Earlier session secrets cookies may still be sealed with. */
  previousSecrets: readonly string[];
  /** Cookies unsealed lately (the unseal derives keys: too slow for every proxied call). */
  unsealed: UnsealedSessions<HostSessionData>;
}

const SETTINGS = Symbol('hostSession');

/** iron-session options: HttpOnly, SameSite=Lax, Secure when the host is served over https. */
export function hostSessionOptions(config: Pick<HostConfig, 'sessionSecret' | 'baseUrl'>): SessionOptions {
  return {
    cookieName: HOST_SESSION_COOKIE,
    password: config.sessionSecret,
    ttl: SESSION_TTL_SECONDS,
    cookieOptions: { httpOnly: true, sameSite: 'lax', secure: config.baseUrl.startsWith('https:'), path: '/' },
  };
}

/** Makes the session available to `getHostSession` and friends on this app. */
export function configureHostSession(app: Express, deps: { config: HostConfig; db: Queryable }): void {
  const settings: HostSessionSettings = {
    options: hostSessionOptions(deps.config),
    previousSecrets: deps.config.previousSessionSecrets,
    db: deps.db,
    baseOrigin: new URL(deps.config.baseUrl).origin,
    unsealed: createUnsealedSessions<HostSessionData>(),
  };
  (app.locals as Record<symbol, unknown>)[SETTINGS] = settings;
}

/** The settings stored by `configureHostSession`. */
export function hostSessionSettings(req: Request): HostSessionSettings {
  const settings = (req.app.locals as Record<symbol, unknown>)[SETTINGS] as HostSessionSettings | undefined;
  if (!settings) throw new Error('configureHostSession was not called for this app');
  return settings;
}

/** The session cookie's value (see `cookieSeal`): the key of the unsealed cache. */
function sealOf(req: Request): string | undefined {
  return cookieSeal(req.headers, HOST_SESSION_COOKIE);
}

/** A request without cookies: iron-session then starts from an empty session, which the cached data fills. */
const NO_COOKIE = { headers: {} } as Request;

/** The kept unseal of the request's session cookie (set on the request by `readHostSession`), if there is one. */
function keptSession(
  req: Request,
  settings: HostSessionSettings,
  seal: string | undefined,
): HostSessionData | undefined {
  return req.hostSessionData ?? (seal === undefined ? undefined : settings.unsealed.get(seal));
}

/** The request's host session (created empty when there is no valid cookie); cached on the request. */
export async function getHostSession(req: Request, res: Response): Promise<HostSession> {
  if (req.hostSession) return req.hostSession;
  const settings = hostSessionSettings(req);
  const seal = sealOf(req);
  const known = keptSession(req, settings, seal);
  let session: HostSession;
  if (known) {
    // save() and destroy() stay iron-session's own, bound to this response.
    session = Object.assign(await getIronSession<HostSessionData>(NO_COOKIE, res, settings.options), known);
  } else {
    session = await openSealedCookie<HostSessionData>(req, res, settings.options, settings.previousSecrets);
    if (seal !== undefined && Object.keys(session).length > 0) settings.unsealed.set(seal, { ...session });
  }
  req.hostSession = session;
  return session;
}

/**
 * The request's session data, for a route that neither saves nor destroys the session (the add-on fetch proxy):
 * a kept unseal as it is, without the iron-session object `getHostSession` binds to the response on every request
 * (its save and destroy); else the session `getHostSession` opens. Cached per request.
 */
export async function readHostSession(req: Request, res: Response): Promise<Readonly<HostSessionData>> {
  if (req.hostSession) return req.hostSession;
  const known = keptSession(req, hostSessionSettings(req), sealOf(req));
  if (!known) return getHostSession(req, res);
  req.hostSessionData = known;
  return known;
}

/** Drops the unsealed copy of the request's session cookie (logout). */
export function forgetUnsealedSession(req: Request): void {
  const seal = sealOf(req);
  if (seal !== undefined) hostSessionSettings(req).unsealed.forget(seal);
}

/** The session's CSRF token, minted and saved when the session has none yet. */
export async function ensureCsrfToken(session: HostSession): Promise<string> {
  if (!session.csrfToken) {
    session.csrfToken = randomBytes(32).toString('base64url');
    await session.save();
  }
  return session.csrfToken;
}

/**
 * Logs a person in: a new session record (the previous one of this cookie, if any, is revoked), a new CSRF
 * token (so one minted before login cannot be replayed after it) and the time of the password check.
 */
export async function startHostLogin(req: Request, res: Response, personId: string, now = Date.now()): Promise<void> {
  const { db } = hostSessionSettings(req);
  const session = await getHostSession(req, res);
  if (session.sessionId) await revokeSession(db, session.sessionId, new Date(now));
  const sessionId = newSessionId();
  await createSessionRecord(db, { sessionId, personId, now: new Date(now), ttlSeconds: SESSION_TTL_SECONDS });
  session.personId = personId;
  session.sessionId = sessionId;
  session.authenticatedAt = Math.floor(now / 1000);
  session.csrfToken = randomBytes(32).toString('base64url');
  await session.save();
}

/** Logs out: revokes this session's record (copies of the cookie stop working too) and clears the cookie. */
export async function endHostLogin(req: Request, res: Response): Promise<void> {
  const session = await getHostSession(req, res);
  if (session.sessionId) await revokeSession(hostSessionSettings(req).db, session.sessionId);
  forgetUnsealedSession(req);
  session.destroy();
}

/**
 * The person of the request's live host session — active or not, the caller decides — or undefined when
 * there is no session, it has no record id (an old cookie), or its record is revoked or expired. `extra` reads
 * more in the same statement (see `loadSessionPerson`).
 */
export async function hostSessionPerson<T extends object = object>(
  req: Request,
  res: Response,
  extra?: SessionPersonExtra,
): Promise<(PersonRecord & T) | undefined> {
  const session = await getHostSession(req, res);
  if (!session.personId || !session.sessionId) return undefined;
  const person = await loadSessionPerson<T>(hostSessionSettings(req).db, session.sessionId, new Date(), extra);
  return person?.id === session.personId ? person : undefined;
}

/** Only same-origin paths are followed after login (no `//host`, no `/\host`, no scheme). */
export function safeReturnTo(value: unknown, fallback = '/developer'): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\'))
    return fallback;
  // eslint-disable-next-line no-control-regex -- refusing control characters is this check's purpose
  if (/[\u0000-\u001f]/.test(value)) return fallback;
  return value;
}

/** True for a browser navigation or form post, false for a script's JSON call. */
export function wantsPage(req: Request): boolean {
  if (req.get(CSRF_HEADER)) return false;
  return !!req.is('application/x-www-form-urlencoded') || req.accepts(['json', 'html']) === 'html';
}

/**
 * Requires a logged-in, active person: pages are redirected to `/login?return_to=…`, API calls get 401.
 * Sets `req.hostPerson` and `req.hostSession`.
 */
export const requireHostLogin: RequestHandler = async (req, res, next) => {
  const person = await hostSessionPerson(req, res);
  if (!person || person.status !== 'active') {
    if (req.method === 'GET' && wantsPage(req)) {
      res.redirect(303, `/login?return_to=${encodeURIComponent(safeReturnTo(req.originalUrl))}`);
      return;
    }
    throw new UnauthorizedError('Log in to the host first');
  }
  req.hostPerson = person;
  next();
};

/** The person `requireHostLogin` loaded. */
export function hostPersonOf(req: Request): PersonRecord {
  if (!req.hostPerson) throw new UnauthorizedError('Log in to the host first');
  return req.hostPerson;
}
