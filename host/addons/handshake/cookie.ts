/** The handshake cookie: the browser's half of the handshake state (the database holds its digest). */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import type { Request, Response } from 'express';
import type { IronSession } from 'iron-session';
import { openSealedCookie } from '../../auth/sealed-cookie.ts';
import type { HostConfig } from '../../config.ts';
import { HANDSHAKE_TTL_MS } from './deps.ts';

/** Name of the handshake cookie (sealed with iron-session, scoped to `/addons`). */
export const HANDSHAKE_COOKIE = 'addon_kit_handshake';

/** What the cookie holds. */
export interface HandshakeCookieData {
  installationId?: string;
  oauthApplicationId?: string;
  personId?: string;
  /** Which redirect is expected next. */
  leg?: AddonSide;
  state?: string;
  /** PKCE verifier of the integrator leg. */
  codeVerifier?: string;
}

/** The opened cookie (save/destroy through iron-session). */
export type HandshakeCookie = IronSession<HandshakeCookieData>;

/** Opens the request's handshake cookie. */
export function openHandshakeCookie(
  config: Pick<HostConfig, 'sessionSecret' | 'previousSessionSecrets' | 'baseUrl'>,
  req: Request,
  res: Response,
): Promise<HandshakeCookie> {
  return openSealedCookie<HandshakeCookieData>(
    req,
    res,
    {
      cookieName: HANDSHAKE_COOKIE,
      password: config.sessionSecret,
      ttl: HANDSHAKE_TTL_MS / 1000,
      // Lax: steps 3 and 5 are top-level GET navigations coming back from the integrator's site.
      cookieOptions: { httpOnly: true, sameSite: 'lax', secure: config.baseUrl.startsWith('https:'), path: '/addons' },
    },
    config.previousSessionSecrets,
  );
}
