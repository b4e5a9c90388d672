/**
 * Step 2 of the add-on handshake: the host sends the user here (the add-on config's `redirect_url`)
 * with its authorization code. Optionally exchange that code at the host's token endpoint, then
 * send the user on to the host's `advance` step with the state unchanged.
 */
import { Router, type Request, type Response } from 'express';
import * as client from 'openid-client';
import type { IntegratorConfig } from '../config.ts';
import type { IntegratorContext } from '../context.ts';
import { messagePage } from '../pages/page.ts';

/** Tokens the host issued to this integrator in step 2 (only when `exchangeHostCode` is on). */
export interface HostTokens {
  access_token: string;
  refresh_token?: string | undefined;
  expires_in?: number | undefined;
  scope?: string | undefined;
}

/** Receives the host tokens of an exchange; the default keeps nothing (store only what you need). */
export type HostTokensHandler = (tokens: HostTokens, req: Request) => Promise<void> | void;

/** The completion path; the add-on config's `redirect_url` is `{baseUrl}` + this. */
export const COMPLETION_PATH = '/addon/complete';

/** `{hostBaseUrl}/addons/authorizations/{oauthApplicationId}/advance`: where step 2 must end. */
export function advanceUrl(config: IntegratorConfig): string {
  return `${config.hostBaseUrl}/addons/authorizations/${config.oauthApplicationId}/advance`;
}

/** openid-client's view of the host as an authorization server. */
function hostConfiguration(config: IntegratorConfig): client.Configuration {
  const tokenUrl = config.hostTokenUrl ?? `${config.hostBaseUrl}/oauth/token`;
  const { clientId, clientSecret } = config.hostClient!;
  const configuration = new client.Configuration(
    { issuer: config.hostBaseUrl, token_endpoint: tokenUrl },
    clientId,
    {},
    client.ClientSecretBasic(clientSecret),
  );
  // A development host runs on http://localhost; openid-client refuses plain http unless told.
  if (tokenUrl.startsWith('http:')) client.allowInsecureRequests(configuration);
  return configuration;
}

/** GET /addon/complete. */
export function completeRouter(ctx: IntegratorContext, onHostTokens?: HostTokensHandler): Router {
  const router = Router();
  router.get(COMPLETION_PATH, async (req: Request, res: Response) => {
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    const { state, code, error } = req.query;
    if (typeof state !== 'string' || state === '') {
      return res
        .status(400)
        .type('html')
        .send(
          messagePage(
            ctx.site,
            'Missing state',
            'This page is reached from the host during add-on authorization; start again from the add-on.',
          ),
        );
    }
    const next = new URL(advanceUrl(ctx.config));
    next.searchParams.set('state', state);
    // The user refused the host's prompt: let the host show its own failure page.
    if (typeof error === 'string' && error !== '') {
      next.searchParams.set('error', error);
      return res.redirect(302, next.toString());
    }
    if (typeof code !== 'string' || code === '') {
      return res
        .status(400)
        .type('html')
        .send(
          messagePage(
            ctx.site,
            'Missing code',
            'The host did not send an authorization code; start again from the add-on.',
          ),
        );
    }
    if (ctx.config.exchangeHostCode) {
      try {
        const currentUrl = new URL(req.originalUrl, ctx.config.baseUrl);
        const tokens = await client.authorizationCodeGrant(hostConfiguration(ctx.config), currentUrl, {
          expectedState: client.skipStateCheck,
        });
        await onHostTokens?.(
          {
            access_token: tokens.access_token,
            refresh_token: tokens.refresh_token,
            expires_in: tokens.expires_in,
            scope: tokens.scope,
          },
          req,
        );
      } catch (err) {
        // Name only the failure kind: the error may quote the request, which holds the code.
        ctx.logger.warn(
          { error: err instanceof Error ? err.name : 'unknown' },
          'exchanging the host authorization code failed',
        );
        return res
          .status(502)
          .type('html')
          .send(
            messagePage(
              ctx.site,
              'Could not reach the host',
              'Exchanging the authorization code with the host failed. Start the authorization again from the add-on.',
            ),
          );
      }
    }
    res.redirect(302, next.toString());
  });
  return router;
}
