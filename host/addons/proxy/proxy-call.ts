/**
 * What a proxied call needs before it goes upstream — the session's person, the installation and the person's
 * authorization of it — read in one statement: one round trip per call instead of three (the proxy's cost is mostly its statements). Each
 * part's SQL stays with its owner (host-sessions.ts, installations.ts, authorizations/); this module only joins
 * them. The session's record is checked in the same statement, so a revoked session stops at the next call.
 * A call that repeats the previous one's read runs no statement of its own: the answer is kept until anything it
 * was read from changes (proxy-call-cache.ts) — on PostgreSQL, calls arriving together share one look at the
 * change log instead.
 */
import type { Request, RequestHandler } from 'express';
import type { PersonRecord } from '../../auth/person.ts';
import { readHostSession } from '../../auth/session.ts';
import {
  authorizationJsonSql,
  authorizationRowOf,
  type AuthorizationRowJson,
  type TokenVault,
  type VaultRecord,
} from '../authorizations/index.ts';
import { accessRowJsonSql, refusalOf, type AccessRow } from '../../oauth/application-access.ts';
import {
  installationApplicationIdSql,
  installationJsonSql,
  installationNotFound,
  installationOfJson,
  isInstallationId,
  type Installation,
  type InstallationJson,
} from '../registry/index.ts';
import { proxyCallKey, type ProxyCallCache } from './proxy-call-cache.ts';
import { addonPersonOf, loadAddonPerson } from '../session-gate.ts';

/** The person, installation and authorization (undefined before the handshake) of one proxied call. */
export interface ProxyCall {
  person: PersonRecord;
  installation: Installation;
  record: VaultRecord | undefined;
  /** The organization's access mode leaves the person out of the add-on's OAuth application (checkAccess). */
  accessRefused: boolean;
}

const COLUMNS = `${installationJsonSql('p.organization_id', '$3')} AS installation,
  ${authorizationJsonSql('$3', 'p.id')} AS authorization, s.expires_at AS session_expires_at,
  ${accessRowJsonSql('p.id', installationApplicationIdSql('$3'))} AS access`;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** What `requireProxyCall` read: the installation (undefined when not visible) and the authorization. */
      proxyCall?: { installation: Installation | undefined; record: VaultRecord | undefined; accessRefused: boolean };
    }
  }
}

/**
 * `requireAddonSession` for the fetch proxy: the session's person (401 `login_required` without a live session
 * of an active person) and, in the same statement, installation `:id` and the person's authorization of it —
 * kept on the request for the handler, which answers 404 for an installation the organization cannot see
 * (after `requireAddonCsrf`, in the order every add-on route answers).
 */
export function requireProxyCall(vault: TokenVault, cache: ProxyCallCache): RequestHandler {
  return async (req, res, next) => {
    const id = String(req.params.id);
    const { sessionId, personId } = await readHostSession(req, res);
    const key = cache.enabled && sessionId && personId ? proxyCallKey(sessionId, id) : undefined;
    // On PostgreSQL a kept answer may be used only once every change committed before this call is known here
    // (a call with nothing kept reads at once: its statement sees those changes itself).
    const cached =
      key === undefined || !cache.get(key, Date.now()) || !(await cache.settled())
        ? undefined
        : cache.get(key, Date.now());
    if (cached && cached.person.id === personId) {
      req.addonPerson = cached.person;
      req.proxyCall = {
        installation: cached.installation,
        record: cached.record,
        accessRefused: cached.accessRefused,
      };
      return next();
    }
    const ticket = cache.ticket();
    const { installation, authorization, session_expires_at, access, ...person } = await loadAddonPerson<{
      installation: InstallationJson | null;
      authorization: AuthorizationRowJson | null;
      session_expires_at: Date;
      access: AccessRow | null;
    }>(req, res, { columns: COLUMNS, params: [isInstallationId(id) ? id : null] });
    // The person alone: the installation's and the authorization's columns (sealed tokens) are not kept on it.
    req.addonPerson = person;
    const call = {
      installation: installation ? installationOfJson(installation) : undefined,
      record: installation && authorization ? await vault.fromRow(authorizationRowOf(authorization)) : undefined,
      accessRefused: refusalOf(access ?? undefined) !== undefined,
    };
    req.proxyCall = call;
    if (key !== undefined && call.installation)
      cache.keep(
        key,
        ticket,
        {
          person,
          installation: call.installation,
          record: call.record,
          accessRefused: call.accessRefused,
          sessionExpiresAt: session_expires_at,
        },
        Date.now(),
      );
    next();
  };
}

/** The person, installation (404 when not visible) and authorization `requireProxyCall` read. */
export function proxyCallOf(req: Request): ProxyCall {
  const person = addonPersonOf(req);
  const call = req.proxyCall;
  if (!call?.installation) throw installationNotFound();
  return { person, installation: call.installation, record: call.record, accessRefused: call.accessRefused };
}
