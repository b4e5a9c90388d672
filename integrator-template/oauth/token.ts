/**
 * The token endpoint: authorization_code (client authentication + PKCE + exact redirect_uri, single
 * use) and refresh_token (rotation with a grace window, reuse revokes the family).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2
 */
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { lockAuthorizationCode, markCodeUsed } from '../store/authorization-codes.ts';
import { issueTokenFamily, revokeTokenFamily, rotateRefreshToken, type TokenPair } from '../store/tokens.ts';
import type { IntegratorContext } from '../context.ts';
import { authenticateClient } from './clients.ts';
import { OAuthError, sendTokenError } from './oauth-error.ts';
import { checkPkce } from './pkce.ts';

/**
 * Successful token response; never cached.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
function sendTokens(res: Response, pair: TokenPair): void {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  res.status(200).json({
    access_token: pair.accessToken,
    token_type: 'Bearer',
    expires_in: pair.expiresIn,
    refresh_token: pair.refreshToken,
    scope: pair.scope,
    // The user as this server knows them: the host sends it back in its add-on lifecycle events.
    user_id: pair.userId,
  });
}

function stringParam(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  // RFC 6749 §3.2: parameters MUST NOT be included more than once.
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} is repeated or malformed`);
  return value;
}

/** `POST /oauth/token`: the form read, the grant issued; a body the parser refuses answered as RFC 6749 says. */
export function tokenRouter(ctx: IntegratorContext): Router {
  const router = Router();
  router.post(
    '/oauth/token',
    express.urlencoded({ extended: false, limit: ctx.config.maxBodyBytes }),
    issueTokens(ctx),
  );
  router.use('/oauth/token', unreadableBody);
  return router;
}

/** The client authenticated, then the grant its `grant_type` names. */
function issueTokens(ctx: IntegratorContext): RequestHandler {
  return async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      if (!req.is('application/x-www-form-urlencoded')) {
        throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
      }
      const grantType = stringParam(body, 'grant_type');
      const client = authenticateClient(req, ctx.config.clients);
      let pair: TokenPair;
      if (grantType === 'authorization_code') pair = await authorizationCodeGrant(ctx, body, client.client_id);
      else if (grantType === 'refresh_token') pair = await refreshTokenGrant(ctx, body, client.client_id);
      else throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
      sendTokens(res, pair);
    } catch (error) {
      if (error instanceof OAuthError) return sendTokenError(res, error);
      throw error;
    }
  };
}

/** The code checked (its client first, then use, expiry, redirect_uri and PKCE) and exchanged for a new token family. */
async function authorizationCodeGrant(
  ctx: IntegratorContext,
  body: Record<string, unknown>,
  clientId: string,
): Promise<TokenPair> {
  const code = stringParam(body, 'code');
  const redirectUri = stringParam(body, 'redirect_uri');
  const verifier = stringParam(body, 'code_verifier');
  const now = ctx.now();
  const outcome = await ctx.db.transaction(async (tx) => {
    const stored = await lockAuthorizationCode(tx, code);
    if (!stored) return new OAuthError('invalid_grant', 'the authorization code is invalid');
    // The client first: another client presenting a used code must not revoke this client's tokens.
    if (stored.clientId !== clientId)
      return new OAuthError('invalid_grant', 'the authorization code was issued to another client');
    if (stored.usedAt) {
      // RFC 6749 §4.1.2: a code used twice SHOULD revoke the tokens issued from it.
      if (stored.familyId) await revokeTokenFamily(tx, stored.familyId, now);
      return new OAuthError('invalid_grant', 'the authorization code was already used');
    }
    if (stored.expiresAt <= now) return new OAuthError('invalid_grant', 'the authorization code expired');
    // RFC 6749 §4.1.3: redirect_uri MUST be identical to the one of the authorization request.
    if (stored.redirectUri !== redirectUri)
      return new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    if (!checkPkce(verifier, stored.codeChallenge)) return new OAuthError('invalid_grant', 'PKCE verification failed');
    const { familyId, pair } = await issueTokenFamily(
      tx,
      { clientId, userId: stored.userId, scope: stored.scope },
      now,
      ctx.config,
    );
    await markCodeUsed(tx, stored.hash, familyId, now);
    return pair;
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

const REFRESH_REFUSALS = {
  unknown: 'the refresh token is invalid',
  wrong_client: 'the refresh token is invalid',
  revoked: 'the refresh token was revoked',
  expired: 'the refresh token expired',
  reused: 'the refresh token was already used; the grant is revoked',
} as const;

/** The refresh token rotated (a reused one revokes its family, and is logged). */
async function refreshTokenGrant(
  ctx: IntegratorContext,
  body: Record<string, unknown>,
  clientId: string,
): Promise<TokenPair> {
  const refreshToken = stringParam(body, 'refresh_token');
  const scope = body.scope === undefined ? undefined : stringParam(body, 'scope');
  const now = ctx.now();
  const outcome = await ctx.db.transaction((tx) =>
    rotateRefreshToken(tx, refreshToken, clientId, ctx.derive, now, ctx.config, scope),
  );
  if (outcome.kind === 'issued') return outcome.pair;
  if (outcome.kind === 'invalid_scope')
    throw new OAuthError('invalid_scope', 'scope must be omitted or equal to the granted scope');
  if (outcome.kind === 'reused')
    ctx.logger.warn({ family: outcome.familyId }, 'refresh token reuse: token family revoked');
  throw new OAuthError('invalid_grant', REFRESH_REFUSALS[outcome.kind]);
}

/** A body the parser refuses (too large, bad encoding) is still answered the RFC 6749 way. */
function unreadableBody(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (
    error &&
    typeof error === 'object' &&
    'status' in error &&
    typeof error.status === 'number' &&
    error.status < 500
  ) {
    return sendTokenError(res, new OAuthError('invalid_request', 'the request body could not be read'));
  }
  next(error);
}
