/**
 * The host's OAuth 2.0 / OpenID Connect provider: oidc-provider configured to the spec (routes under
 * `/oauth/*`, the spec's scopes and claims, 2 h access tokens, 1 h ID tokens, refresh tokens
 * honoured 90 days and rotated, PKCE S256 required for public clients), storing everything in the
 * host database. The spec-shaped responses are in `response-shapes.ts`; the pages in `interaction/`.
 */
import { createHmac } from 'node:crypto';
import type { SessionOptions } from 'iron-session';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { loadSessionPerson } from '../auth/host-sessions.ts';
import { openSealedCookie } from '../auth/sealed-cookie.ts';
import { hostSessionOptions, type HostSessionData } from '../auth/session.ts';
import type { HostConfig } from '../config.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { connectAccessPrompt } from './access-prompt.ts';
import { accountFinder } from './account.ts';
import { DatabaseAdapter } from './provider-records/index.ts';
import { ClientAdapter } from './client-adapter.ts';
import type { ClientCache } from './client-cache.ts';
import { codeIssuedHook } from './code-issued.ts';
import { providerErrorRenderer } from './error-page.tsx';
import { frameAndReferrerPolicy } from './frame-and-referrer-policy.ts';
import { revokeOnLateCodeReplay } from './late-code-replay.ts';
import { revokeOnLateRefreshReuse } from './late-refresh-reuse.ts';
import { replayConcurrentRefresh } from './provider-records/index.ts';
import { shapeResponses } from './response-shapes.ts';
import { isProviderScope, PROVIDER_SCOPES } from './scopes.ts';
import { loadSigningKeys } from './signing-keys.ts';
import { TOKEN_LIFETIMES } from './lifetimes.ts';
import type { ClientAuthThrottle } from '../limits/client-auth-throttle.ts';
import { countClientAuthFailures } from './throttle-client-auth.ts';

export { TOKEN_LIFETIMES };

/** Routes of the provider, all under `/oauth` (discovery stays at `/.well-known/openid-configuration`). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/discovery/keys',
  end_session: '/oauth/logout',
} as const;

/** Where the provider sends the browser for login, account choice and consent. */
export function interactionPath(uid: string): string {
  return `/oauth/interaction/${uid}`;
}

/** What the provider is built from. */
export interface OAuthProviderDeps {
  config: HostConfig;
  db: Database;
  logger: Logger;
  /** Counts the client authentications the provider refuses (host/limits). */
  clientAuth?: ClientAuthThrottle;
  /** Client metadata kept in memory (client-cache.ts); without it every use reads the database. */
  clientCache?: ClientCache;
}

/**
 * Refuses scopes outside the spec's list with invalid_scope. oidc-provider silently drops unknown
 * scopes before extra-parameter checks run, so the scope as the client sent it is read here.
 * Runs after client and redirect_uri checks, so the error goes back to the client.
 * @see RFC 6749 §4.1.2.1
 */
async function rejectUnknownScopes(ctx: KoaContextWithOIDC): Promise<void> {
  const sent = ctx.method === 'POST' ? ctx.oidc.body?.scope : ctx.query.scope;
  const unknown = (typeof sent === 'string' ? sent : '').split(' ').filter((s) => s && !isProviderScope(s));
  if (unknown.length) throw new errors.InvalidScope(`unknown scope: ${unknown.join(' ')}`, unknown.join(' '));
}

/** Why the provider asks for a login when the host login and its own session disagree. */
export const HOST_SESSION_REASON = 'host_session';

/**
 * The interaction policy: oidc-provider's login and consent, plus `prompt=select_account`, plus one
 * login check: the provider's session must belong to the person of a live host session. The host
 * login is the one login of the site, so logging out of the host, or in as someone else, is seen
 * by the next authorization. Between login and consent: the organization's access_mode (access-prompt.ts).
 */
function buildPolicy(sessionOptions: SessionOptions, previousSecrets: readonly string[], db: Database) {
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }), 0);
  policy.get('login')!.checks.push(
    new interactionPolicy.Check(
      HOST_SESSION_REASON,
      'the host login does not match the authorization session',
      async (ctx) => {
        const accountId = ctx.oidc.session?.accountId;
        if (!accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        const host = await openSealedCookie<HostSessionData>(ctx.req, ctx.res, sessionOptions, previousSecrets);
        // A revoked or expired host session is no login, even when its cookie still names the person.
        const live =
          host.personId === accountId &&
          !!host.sessionId &&
          (await loadSessionPerson(db, host.sessionId))?.id === accountId;
        return live ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  policy.add(
    connectAccessPrompt(db),
    policy.findIndex((prompt) => prompt.name === 'consent'),
  );
  return policy;
}

/** The oidc-provider configuration of the host. */
export function providerConfiguration(deps: OAuthProviderDeps, jwks: Configuration['jwks']): Configuration {
  const { config, db } = deps;
  const box = createSecretBox(config.encryptionKeys);
  // oidc-provider signs its cookies with the first key and accepts any: the current secret's, then earlier ones'.
  const cookieKeys = [config.sessionSecret, ...config.previousSessionSecrets].map((secret) =>
    createHmac('sha256', secret).update('oidc-provider cookies').digest('base64url'),
  );
  return {
    adapter: (name: string) =>
      name === 'Client' ? new ClientAdapter(db, box, deps.clientCache) : new DatabaseAdapter(db, name),
    findAccount: accountFinder(db),
    jwks,
    cookies: {
      keys: cookieKeys,
      names: {
        session: 'addon_kit_op_session',
        interaction: 'addon_kit_interaction',
        resume: 'addon_kit_interaction_resume',
      },
    },
    claims: { openid: ['sub', 'name', 'email', 'organization_id', 'organization_name'] },
    // ID tokens from the token endpoint carry the scope's claims too (the spec lists them in the ID token).
    conformIdTokenClaims: false,
    scopes: [...PROVIDER_SCOPES],
    extraParams: { scope: rejectUnknownScopes },
    responseTypes: ['code'],
    subjectTypes: ['public'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    // @see RFC 7636 §4.4.1; RFC 9700 §2.1.1: public clients must use PKCE.
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // redirect_uri is always sent and always compared exactly. @see RFC 6749 §4.1.3
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: { enabled: false },
      userinfo: { enabled: true },
      // A client inspects and revokes only its own tokens; anything else is "inactive" / a no-op.
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    },
    ttl: {
      AccessToken: TOKEN_LIFETIMES.accessToken,
      AuthorizationCode: TOKEN_LIFETIMES.authorizationCode,
      IdToken: TOKEN_LIFETIMES.idToken,
      RefreshToken: TOKEN_LIFETIMES.refreshToken,
      // Extended on every code exchange and refresh (response-shapes.ts): it lives as long as its newest refresh token.
      Grant: TOKEN_LIFETIMES.refreshToken,
      Interaction: TOKEN_LIFETIMES.interaction,
      Session: TOKEN_LIFETIMES.session,
    },
    // Every code exchange yields a refresh token (no offline_access needed); every refresh rotates it.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Tokens outlive the browser session at the provider: the user stays connected until revoked.
    expiresWithSession: async () => false,
    routes: OAUTH_ROUTES,
    interactions: {
      url: (_ctx, interaction) => interactionPath(interaction.uid),
      policy: buildPolicy(hostSessionOptions(config), config.previousSessionSecrets, db),
    },
    // Browsers may call the token endpoints only from the origins of the client's own redirect URIs.
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => safeOrigin(uri) === origin) ?? false,
    renderError: providerErrorRenderer(config.platformName),
  };
}

function safeOrigin(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}

/** Builds the provider: loads (or creates) the signing keys, configures it, adds the refresh replay, the response shaping, late-replay and late-reuse revocation and the code-issued hook. */
export async function createOAuthProvider(deps: OAuthProviderDeps): Promise<Provider> {
  const jwks = await loadSigningKeys(deps.db, createSecretBox(deps.config.encryptionKeys));
  const provider = new Provider(deps.config.baseUrl, providerConfiguration(deps, jwks));
  provider.use(frameAndReferrerPolicy());
  if (deps.clientAuth) provider.use(countClientAuthFailures(deps.clientAuth));
  // Outside the shaping: the answer kept for a concurrent duplicate is the one the client received.
  provider.use(replayConcurrentRefresh(deps.db));
  provider.use(shapeResponses(deps.db));
  provider.use(revokeOnLateCodeReplay());
  provider.use(revokeOnLateRefreshReuse());
  provider.use(codeIssuedHook(provider, deps.logger));
  provider.on('server_error', (_ctx: unknown, error: Error) =>
    deps.logger.error(
      { err: { name: error.name, message: error.message, stack: error.stack } },
      'oauth provider error',
    ),
  );
  // Koa prints every other error to stderr unless the app has an 'error' listener: a client sending a
  // malformed request (a parser error on its socket, a hang-up) is not the server's failure.
  // The typings list oidc-provider's own events only; Provider is a Koa application and emits Koa's 'error'.
  (provider as unknown as NodeJS.EventEmitter).on('error', (error: Error & { code?: string; status?: number }) => {
    const client =
      (error.status !== undefined && error.status < 500) ||
      /^(HPE_|ECONNRESET|EPIPE|ERR_STREAM_PREMATURE_CLOSE)/.test(error.code ?? '');
    const entry = {
      err: { name: error.name, message: error.message, code: error.code, ...(client ? {} : { stack: error.stack }) },
    };
    if (client) deps.logger.debug(entry, 'oauth request failed on the client side');
    else deps.logger.error(entry, 'oauth provider error');
  });
  return provider;
}
