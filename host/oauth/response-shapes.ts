/**
 * Shapes oidc-provider's responses to the spec, after the provider has done its work:
 * - token: `token_type` "bearer", `created_at` (Unix seconds); records MAU and the connection (a refresh
 *   once per person, application and month);
 *   extends the grant with each refresh token issued (code exchange or refresh) so it lives as long as
 *   its newest refresh token;
 * - introspection: exactly `{active, scope, client_id, token_type: "Bearer", exp, iat}` or `{active: false}`
 *   (also for a token of a person the organization's access_mode no longer admits, as the APIs refuse it, and for
 *   an ID token or any other token it does not know);
 * - revocation: `{}` (oidc-provider answers an empty body);
 * - discovery: only what is supported (no JWT client authentication).
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Queryable } from '../db/database.ts';
import { findAccessRefusal } from './application-access.ts';
import { createRefreshActivity, recordTokenIssued } from './mau.ts';
import { TOKEN_LIFETIMES } from './lifetimes.ts';

type Body = Record<string, unknown>;

/** The oidc-provider (koa) middleware that reshapes responses after each request; see the file header. */
export function shapeResponses(db: Queryable): Middleware {
  const recordRefresh = createRefreshActivity();
  return async (koaCtx, next) => {
    await next();
    const ctx = koaCtx as unknown as KoaContextWithOIDC;
    const route = ctx.oidc?.route;
    const body = ctx.body as Body | undefined;
    if (route === 'token' && ctx.status === 200 && body?.access_token) {
      await shapeTokenResponse(ctx, body, db, recordRefresh);
    } else if (route === 'introspection' && ctx.status === 400 && body?.error === 'unsupported_token_type') {
      // oidc-provider refuses to look at a JWT (an ID token); to the client it is a token it cannot use
      // here, which introspection reports as inactive. @see RFC 7662 §2.2
      ctx.status = 200;
      ctx.body = { active: false };
    } else if (route === 'introspection' && ctx.status === 200 && body) {
      const active = body.active === true && !(await refusedHolder(db, body));
      ctx.body = active
        ? {
            active: true,
            scope: body.scope ?? '',
            client_id: body.client_id,
            token_type: 'Bearer',
            exp: body.exp,
            iat: body.iat,
          }
        : { active: false };
    } else if (route === 'revocation' && ctx.status === 200) {
      ctx.body = {};
    } else if (route === 'discovery' && ctx.status === 200 && body) {
      delete body.token_endpoint_auth_signing_alg_values_supported;
      // Session ids (sid) go into no token: front- and back-channel logout are not offered.
      if (Array.isArray(body.claims_supported))
        body.claims_supported = body.claims_supported.filter((c) => c !== 'sid');
    }
  };
}

/** Whether the token's person is no longer admitted for its application (access_mode). */
async function refusedHolder(db: Queryable, body: Body): Promise<boolean> {
  if (typeof body.sub !== 'string' || typeof body.client_id !== 'string') return false;
  return !!(await findAccessRefusal(db, { personId: body.sub, clientId: body.client_id }));
}

/**
 * Slack added when a grant's expiry is extended: the grant is saved again only once its newest refresh
 * token would outlive it, not on every refresh (it may outlive its tokens by this much, holding nothing usable).
 */
const GRANT_EXTENSION_SLACK_SECONDS = 30 * 24 * 60 * 60;

async function shapeTokenResponse(
  ctx: KoaContextWithOIDC,
  body: Body,
  db: Queryable,
  recordRefresh: typeof recordTokenIssued,
): Promise<void> {
  const { AccessToken: at, Grant: grant } = ctx.oidc.entities;
  body.token_type = 'bearer';
  body.created_at = at?.iat ?? Math.floor(Date.now() / 1000);
  if (at?.accountId) {
    const record = ctx.oidc.params?.grant_type === 'refresh_token' ? recordRefresh : recordTokenIssued;
    await record(db, {
      clientId: at.clientId!,
      personId: at.accountId,
      scopes: (at.scope ?? '').split(' ').filter(Boolean),
    });
  }
  // oidc-provider reuses one grant per session and client, created with the first consent: each
  // refresh token issued (by a code exchange as by a refresh) must keep it alive for its 90 days.
  if (grant && body.refresh_token) {
    const until = Math.floor(Date.now() / 1000) + TOKEN_LIFETIMES.refreshToken;
    if (!grant.exp || grant.exp < until) {
      grant.exp = until + GRANT_EXTENSION_SLACK_SECONDS;
      await grant.save();
    }
  }
}
