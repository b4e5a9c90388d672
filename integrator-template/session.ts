/** The integrator's own login session (an iron-session sealed cookie) and its CSRF token. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { getIronSession, type IronSession } from 'iron-session';

/** What the session cookie holds. */
export interface SessionData {
  /** The signed-in user's id. */
  userId?: string;
  /** Synchronizer token every form POST must echo. */
  csrf?: string;
  /** Host OAuth applications whose completion this browser went through, newest last (development; complete.ts). */
  applications?: number[];
}

/** An open session. */
export type Session = IronSession<SessionData>;

/** Cookie name, sealing secret and Secure flag. */
export interface SessionSettings {
  cookieName: string;
  secret: string;
  /** Secure cookies when the integrator is served over https. */
  secure: boolean;
}

/** Hours a login lasts. */
const SESSION_TTL_SECONDS = 8 * 3600;

/** Opens the session of a request (empty when there is no valid cookie). */
export function openSession(req: Request, res: Response, s: SessionSettings): Promise<Session> {
  return getIronSession<SessionData>(req, res, {
    cookieName: s.cookieName,
    password: s.secret,
    ttl: SESSION_TTL_SECONDS,
    cookieOptions: { httpOnly: true, sameSite: 'lax', secure: s.secure, path: '/' },
  });
}

/** The session's CSRF token, created (and saved) on first use. */
export async function csrfToken(session: Session): Promise<string> {
  if (!session.csrf) {
    session.csrf = randomBytes(32).toString('base64url');
    await session.save();
  }
  return session.csrf;
}

/** True when the posted `csrf_token` matches the session's. */
export function csrfMatches(session: Session, posted: unknown): boolean {
  if (!session.csrf || typeof posted !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(posted);
  return a.length === b.length && timingSafeEqual(a, b);
}
