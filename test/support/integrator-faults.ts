/**
 * Broken integrators for the doctor's tests: each fault is a small Express router placed in front of the real
 * template integrator, changing one behaviour (a status, a header, a field, a redirect) and nothing else.
 */
import { createHash } from 'node:crypto';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { CLIENT_ID, REDIRECT_URI } from '#integrator/test/support.ts';

type Body = Record<string, unknown>;

/** Rewrites every JSON body (and status) the route sends. */
function onJson(transform: (res: Response, body: Body) => Body): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: Body) => json(transform(res, body));
    next();
  };
}

/** Rewrites the Location of every redirect the route sends. */
function onLocation(transform: (url: URL) => void): RequestHandler {
  return (_req, res, next) => {
    const location = res.location.bind(res);
    res.location = (url: string) => {
      const parsed = new URL(url);
      transform(parsed);
      return location(parsed.toString());
    };
    next();
  };
}

const form = express.urlencoded({ extended: false });

/** Answers repeated token requests for the same `key` with the first success (a grant usable twice). */
function replaySuccess(grantType: string, key: string): Router {
  const seen = new Map<string, Body>();
  return Router().post('/oauth/token', form, (req: Request, res: Response, next) => {
    const body = req.body as Record<string, string>;
    const value = body[key];
    if (body.grant_type !== grantType || !value) return next();
    const earlier = seen.get(value);
    if (earlier) return res.set('Cache-Control', 'no-store').json(earlier);
    onJson((r, sent) => {
      if (r.statusCode === 200) seen.set(value, sent);
      return sent;
    })(req, res, next);
  });
}

const FIXED_VERIFIER = 'doctor-fault-fixed-verifier-0123456789-abcdefghij';
const FIXED_CHALLENGE = createHash('sha256').update(FIXED_VERIFIER).digest('base64url');

/**
 * PKCE that checks nothing: every challenge becomes one a fixed verifier answers, and every verifier that
 * one. With `optional`, a request without a challenge is accepted too (an integrator without PKCE).
 */
function neutralizePkce(optional: boolean): Router {
  return Router()
    .get('/oauth/authorize', (req, _res, next) => {
      const url = new URL(req.url, 'http://integrator.test');
      if (url.searchParams.has('code_challenge') || optional) {
        url.searchParams.set('code_challenge', FIXED_CHALLENGE);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      req.url = `${url.pathname}${url.search}`;
      next();
    })
    .post('/oauth/token', form, (req, _res, next) => {
      const body = req.body as Record<string, string>;
      if (body.grant_type === 'authorization_code') body.code_verifier = FIXED_VERIFIER;
      next();
    });
}

/** The faults by name; each is what an integrator gets wrong, in one place. */
export const FAULTS = {
  completion404: () =>
    Router().get('/addon/complete', (_req, res) => void res.status(404).json({ error: 'not_found' })),
  completionDropsState: () =>
    Router().get(
      '/addon/complete',
      onLocation((u) => u.searchParams.delete('state')),
    ),
  completionChangesState: () =>
    Router().get(
      '/addon/complete',
      onLocation((u) => u.searchParams.set('state', 'fixed-state')),
    ),
  authorizeRedirectsToUnregistered: () =>
    Router().get('/oauth/authorize', (req, res, next) => {
      const { redirect_uri: uri, state } = req.query as Record<string, string>;
      if (!uri || uri === REDIRECT_URI) return next();
      res.redirect(302, `${uri}?${new URLSearchParams({ error: 'invalid_request', state: state ?? '' })}`);
    }),
  unknownClientRedirects: () =>
    Router().get('/oauth/authorize', (req, res, next) => {
      const { client_id: clientId, redirect_uri: uri, state } = req.query as Record<string, string>;
      if (clientId === CLIENT_ID || !uri) return next();
      res.redirect(302, `${uri}?${new URLSearchParams({ error: 'unauthorized_client', state: state ?? '' })}`);
    }),
  authorizeAltersState: () =>
    Router().post(
      '/oauth/authorize',
      onLocation((u) => u.searchParams.set('state', `${u.searchParams.get('state')}x`)),
    ),
  tokenBasicOnly: () =>
    Router().post('/oauth/token', (req, res, next) => {
      if (/^Basic /i.test(req.get('authorization') ?? '')) return next();
      res
        .set('WWW-Authenticate', 'Basic realm="integrator"')
        .status(401)
        .json({ error: 'invalid_client', error_description: 'use HTTP Basic' });
    }),
  tokenCamelCase: () =>
    Router().post(
      '/oauth/token',
      onJson((_res, b) =>
        'access_token' in b
          ? {
              accessToken: b.access_token,
              tokenType: b.token_type,
              expiresIn: b.expires_in,
              refreshToken: b.refresh_token,
              scope: b.scope,
            }
          : b,
      ),
    ),
  tokenTypeMac: () =>
    Router().post(
      '/oauth/token',
      onJson((_res, b) => ('access_token' in b ? { ...b, token_type: 'mac' } : b)),
    ),
  expiresInString: () =>
    Router().post(
      '/oauth/token',
      onJson((_res, b) => ('expires_in' in b ? { ...b, expires_in: String(b.expires_in) } : b)),
    ),
  expiresInNegative: () =>
    Router().post(
      '/oauth/token',
      onJson((_res, b) => ('expires_in' in b ? { ...b, expires_in: -1 } : b)),
    ),
  noCacheControl: () =>
    Router().post(
      '/oauth/token',
      onJson((res, b) => {
        res.removeHeader('Cache-Control');
        res.removeHeader('Pragma');
        return b;
      }),
    ),
  badCode500: () =>
    Router().post(
      '/oauth/token',
      onJson((res, b) => {
        if (b.error_description !== 'the authorization code is invalid') return b;
        res.status(500);
        return { error: 'server_error' };
      }),
    ),
  badCodeAccepted: () =>
    Router().post(
      '/oauth/token',
      onJson((res, b) => {
        if (b.error_description !== 'the authorization code is invalid') return b;
        res.status(200).set('Cache-Control', 'no-store');
        return { access_token: 'accepted-anything', token_type: 'Bearer' };
      }),
    ),
  wrongSecret400: () =>
    Router().post(
      '/oauth/token',
      onJson((res, b) => {
        if (res.statusCode === 401) res.status(400);
        return b;
      }),
    ),
  codeReusable: () => replaySuccess('authorization_code', 'code'),
  refreshReplayAccepted: () => replaySuccess('refresh_token', 'refresh_token'),
  pkceUnchecked: () => neutralizePkce(false),
  pkceNotSupported: () => neutralizePkce(true),
  noRefreshToken: () =>
    Router().post(
      '/oauth/token',
      onJson((_res, b) => {
        const { refresh_token: _dropped, ...rest } = b;
        return rest;
      }),
    ),
  apiRefusesToken: () =>
    Router().get('/api/messages', (_req, res) => {
      res.set('WWW-Authenticate', 'Bearer error="invalid_token"').status(401).json({ error: 'invalid_token' });
    }),
  apiAcceptsBadToken: () =>
    Router().use(
      '/api',
      onJson((res, b) => {
        if (res.statusCode !== 401) return b;
        res.removeHeader('WWW-Authenticate');
        res.status(200);
        return { data: [] };
      }),
    ),
  apiNoChallenge: () =>
    Router().use(
      '/api',
      onJson((res, b) => {
        if (res.statusCode === 401) res.removeHeader('WWW-Authenticate');
        return b;
      }),
    ),
} satisfies Record<string, () => Router>;

/** A fault's name. */
export type FaultName = keyof typeof FAULTS;
