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
import { openSession } from '../session.ts';
import { applicationIdParam, rememberApplication } from './session-applications.ts';

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
export function advanceUrl(config: IntegratorConfig, applicationId = config.oauthApplicationId): string {
  return `${config.hostBaseUrl}/addons/authorizations/${applicationId}/advance`;
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

/**
 * The host OAuth application a completion is for: the configured one at `/addon/complete`; the one in the path at
 * `/addon/complete/{id}` — any in development (remembered in the session for step 4), only the configured one
 * otherwise. Undefined: a page was sent.
 */
async function applicationOf(ctx: IntegratorContext, req: Request, res: Response): Promise<number | undefined> {
  const { config } = ctx;
  const page = (status: number, title: string, text: string) => {
    res
      .status(status)
      .type('html')
      .send(messagePage(ctx.site, title, text));
    return undefined;
  };
  if (req.params.oauthApplicationId === undefined) {
    if (config.oauthApplicationId !== undefined) return config.oauthApplicationId;
    return page(
      404,
      'Unknown add-on',
      `This integrator serves the add-on named in the completion URL: set the add-on config's redirect_url to ` +
        `${config.baseUrl}${COMPLETION_PATH}/{oauth_application_id}.`,
    );
  }
  const id = applicationIdParam(req.params.oauthApplicationId);
  const development = config.environment === 'development';
  if (id === undefined || (!development && id !== config.oauthApplicationId))
    return page(404, 'Unknown add-on', 'This integrator does not serve that add-on.');
  if (development) await rememberApplication(await openSession(req, res, ctx.session), id);
  return id;
}

/** GET /addon/complete and /addon/complete/{oauth_application_id}. */
export function completeRouter(ctx: IntegratorContext, onHostTokens?: HostTokensHandler): Router {
  const router = Router();
  router.get([COMPLETION_PATH, `${COMPLETION_PATH}/:oauthApplicationId`], async (req: Request, res: Response) => {
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
    const applicationId = await applicationOf(ctx, req, res);
    if (applicationId === undefined) return;
    const next = new URL(advanceUrl(ctx.config, applicationId));
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
