/**
 * Request authentication for the APIs: a personal access token (or a /docs console token) by HTTP Basic, or an
 * OAuth access token as Bearer. Every request runs as a person, loaded fresh (roles read at request time).
 */
import type { Request, RequestHandler } from 'express';
import type { Queryable } from '../db/database.ts';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import { isConsoleClientId, verifyConsoleToken } from './console-tokens.ts';
import { loadPerson, type PersonRecord } from './person.ts';
import { verifyPersonalAccessToken } from './personal-access-tokens.ts';

/** What a valid Bearer token stands for. */
export interface BearerGrant {
  personId: string;
  scopes: readonly string[];
  /** OAuth client_id of the application the token was issued to. */
  clientId: string;
}

/** Checks Bearer tokens; the OAuth provider supplies the implementation. */
export interface BearerVerifier {
  /** The grant of an active token; undefined for unknown, expired or revoked ones. */
  verify(token: string): Promise<BearerGrant | undefined>;
}

export interface AuthContext {
  person: PersonRecord;
  /** A console token (auth/console-tokens.ts) is sent like a personal access token but is bound to one API. */
  method: 'personal_access_token' | 'oauth' | 'console_token';
  /**
   * OAuth scopes of the token; a personal access token acts with all of its owner's access, a console token with
   * its API's scope only.
   */
  scopes: ReadonlySet<string> | 'all';
  clientId?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
    }
  }
}

/** Parses `Authorization: Basic base64(user:password)`; undefined when malformed. @see RFC 7617 §2 */
export function parseBasic(header: string): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  if (at <= 0) return undefined;
  return { username: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

type Authenticated = { person: PersonRecord | undefined; context: Omit<AuthContext, 'person'> | undefined };

/**
 * HTTP Basic: a personal access token, or a console token (a `console_…` client id). A console token used outside
 * the API it was issued for (`req.baseUrl`, where the router is mounted) is refused with 403, as a scope is.
 */
async function authenticateBasic(req: Request, db: Queryable, now: Date): Promise<Authenticated> {
  const credentials = parseBasic(req.get('authorization') ?? '');
  if (credentials && isConsoleClientId(credentials.username)) {
    const grant = await verifyConsoleToken(db, credentials.username, credentials.password, now);
    if (grant && grant.target.apiPrefix !== req.baseUrl)
      throw new ForbiddenError(`This console token is for ${grant.target.apiPrefix} only`);
    const scopes = new Set(grant?.target.scope ? [grant.target.scope] : []);
    return { person: grant?.person, context: { method: 'console_token', scopes, clientId: credentials.username } };
  }
  // The token and its person in one statement.
  const person = credentials && (await verifyPersonalAccessToken(db, credentials.username, credentials.password));
  return { person, context: { method: 'personal_access_token', scopes: 'all' } };
}

/** Authenticates the request or answers 401. `now` is the clock console tokens expire by (tests set it). */
export function authenticate(deps: { db: Queryable; bearer: BearerVerifier; now?: () => Date }): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    let person: PersonRecord | undefined;
    let context: Omit<AuthContext, 'person'> | undefined;
    if (/^Basic\s/i.test(header)) {
      ({ person, context } = await authenticateBasic(req, deps.db, deps.now?.() ?? new Date()));
    } else if (/^Bearer\s/i.test(header)) {
      const token = header.replace(/^Bearer\s+/i, '').trim();
      const grant = token ? await deps.bearer.verify(token) : undefined;
      person = grant?.personId ? await loadPerson(deps.db, grant.personId) : undefined;
      context = grant && { method: 'oauth', scopes: new Set(grant.scopes), clientId: grant.clientId };
    }
    const attempted = /^Basic\s/i.test(header) ? 'basic' : /^Bearer\s/i.test(header) ? 'bearer' : 'none';
    if (!person || !context || person.status !== 'active') throw new UnauthorizedError(undefined, attempted);
    req.auth = { person, ...context };
    next();
  };
}

/** The authenticated context of a request that passed `authenticate`. */
export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new UnauthorizedError();
  return req.auth;
}
