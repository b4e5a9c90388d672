/**
 * Request authentication for the APIs: a personal access token by HTTP Basic, or an OAuth access
 * token as Bearer. Every request runs as a person, loaded fresh (roles read at request time).
 */
import type { Request, RequestHandler } from 'express';
import type { Queryable } from '../db/database.ts';
import { UnauthorizedError } from '../errors.ts';
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
  method: 'personal_access_token' | 'oauth';
  /** OAuth scopes of the token; a personal access token acts with all of its owner's access. */
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

/** Authenticates the request or answers 401. */
export function authenticate(deps: { db: Queryable; bearer: BearerVerifier }): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    let person: PersonRecord | undefined;
    let context: Omit<AuthContext, 'person'> | undefined;
    if (/^Basic\s/i.test(header)) {
      const credentials = parseBasic(header);
      // The token and its person in one statement.
      person = credentials && (await verifyPersonalAccessToken(deps.db, credentials.username, credentials.password));
      context = { method: 'personal_access_token', scopes: 'all' };
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
