/**
 * The add-on runtime of a host: the registry API (`/addons/v1`, personal access tokens or the CLI's token), and the
 * browser-facing routes under `/addons` (session cookie): installations, state, the fetch proxy and
 * the handshake. Owns the background sweeper and the loopback port; `close()` stops both.
 *
 * Browser-facing routes (session cookie; POSTs also X-CSRF-Token + exact Origin):
 * - `GET  /addons/installations` → `{data: [{id, oauth_application_id, environment, version, ui_extensions,
 *   state, ui_origins, bundle_url}], csrf_token}` for the logged-in person's organization
 * - `GET  /addons/installations/{id}/bundle.js` → the add-on's built JavaScript
 * - `GET  /addons/installations/{id}/state` → `{state}`
 * - `POST /addons/installations/{id}/fetch/{service|integrator}` → the fetch proxy, its steps listed in proxy/index.ts
 */
import type Provider from 'oidc-provider';
import express, { Router, type Express, type RequestHandler } from 'express';
import { authenticate, type BearerVerifier } from '../auth/authenticate.ts';
import { requireUserAgent } from '../auth/user-agent.ts';
import { allowsPrivateAddresses, type HostConfig } from '../config.ts';
import { createSecretBox, type SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { NO_METRICS, type HostMetrics } from '../metrics/index.ts';
import { onAuthorizationCodeIssued } from '../oauth/code-issued.ts';
import { createTokenVault, type TokenVault } from './authorizations/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { handshakeRouter, recordServiceConsent } from './handshake/index.ts';
import { revokeAuthorizationRoute, type RevokeDeps } from './lifecycle/index.ts';
import { fetchProxy, type ProxyCallCache } from './proxy/index.ts';
import {
  installationBundleRoute,
  installationStateRoute,
  listInstallationsRoute,
  registryApplicationsRouter,
  registryRouter,
  requireRegistryCredentials,
  type AddonPages,
} from './registry/index.ts';
import { addonErrorHandler, requireAddonCsrf, requireAddonSession } from './session-gate.ts';
import {
  createRefreshEngine,
  createSweeper,
  hostGrant,
  integratorGrant,
  type RefreshEngine,
  type Sweeper,
} from './tokens/index.ts';
import { createLoopback } from './upstream/index.ts';

/** What the runtime needs from createHost. */
export interface AddonRuntimeDeps {
  app: Express;
  config: HostConfig;
  db: Database;
  logger: Logger;
  bearer: BearerVerifier;
  /** The host's OAuth provider: step 1 of the handshake and the host's own grant. */
  provider: Provider;
  /** What proxied calls were allowed on, kept between calls where that is safe (proxy-call-cache.ts). */
  proxyCalls: ProxyCallCache;
  clock?: Clock;
  /** Pages that mount add-ons (the demo's), named in a push's answer. */
  pages?: AddonPages | undefined;
  /** Where proxied calls and add-on token refreshes are counted. */
  metrics?: HostMetrics;
}

/** The runtime's routers and the parts tests reach into. */
export interface AddonRuntime {
  /** Handlers for `/addons/v1` (the registry API). */
  registry: RequestHandler[];
  /** The router for `/addons`. */
  router: Router;
  vault: TokenVault;
  /** Both grants' access tokens, refreshed when due. */
  tokens: RefreshEngine;
  /** Background refresh of integrator tokens. */
  sweeper: Sweeper;
  box: SecretBox;
  /** What `revokeAuthorization` needs: the account page's Revoke revokes as `POST …/revoke` does. */
  revoking: RevokeDeps;
  /** Stops the sweeper and the loopback port. */
  close(): Promise<void>;
}

/** Builds the add-on runtime of a host (registry, proxy, handshake, sweeper). Its steps, in order. */
export function createAddonRuntime(deps: AddonRuntimeDeps): AddonRuntime {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  const box = createSecretBox(config.encryptionKeys);
  const vault = createTokenVault(db, box);
  const loopback = createLoopback(deps.app);
  // The add-on lifecycle events are recorded in the transaction of the change they report (host/addons/lifecycle).
  const lifecycle = { transaction: db.transaction.bind(db), box };
  const parts: RuntimeParts = { deps, clock, box, vault, loopback, lifecycle };
  const tokens = createTokens(parts);
  const leadMs = config.addonRefreshLeadSeconds * 1000;
  const sweeper = createSweeper({ db, vault, engine: tokens, clock, logger: deps.logger, leadMs });
  if (config.addonSweepIntervalSeconds > 0) sweeper.start(config.addonSweepIntervalSeconds * 1000);
  const registry = registryHandlers(deps, box);
  const revoking: RevokeDeps = { db, box, vault, provider: deps.provider, clock, logger: deps.logger };
  const router = Router();
  mountInstallationRoutes(router, parts, tokens, revoking);
  mountHandshake(router, parts);

  return {
    registry,
    router,
    vault,
    tokens,
    sweeper,
    box,
    revoking,
    async close() {
      await sweeper.stop();
      await loopback.close();
    },
  };
}

/** What the runtime's steps share. */
interface RuntimeParts {
  deps: AddonRuntimeDeps;
  clock: Clock;
  box: SecretBox;
  vault: TokenVault;
  loopback: ReturnType<typeof createLoopback>;
  /** What recording a lifecycle event in a change's transaction needs. */
  lifecycle: { transaction: Database['transaction']; box: SecretBox };
}

/** Both grants' access tokens (the host's service token, the integrator's), refreshed when due under a lease. */
function createTokens({ deps, clock, box, vault, loopback, lifecycle }: RuntimeParts): RefreshEngine {
  const { config, db } = deps;
  const timeoutSeconds = config.addonTokenTimeoutSeconds;
  return createRefreshEngine({
    db,
    vault,
    clock,
    logger: deps.logger,
    leadMs: config.addonRefreshLeadSeconds * 1000,
    // A lease outlives the token request it covers, with a margin for the writes around it.
    leaseMs: timeoutSeconds * 1000 + 2000,
    onRefresh: (side, outcome) =>
      deps.metrics?.tokenRefresh(side === 'integrator' ? 'addon_integrator' : 'addon_service', outcome),
    lifecycle,
    kinds: {
      service: hostGrant({ db, box, loopback, issuer: config.baseUrl, timeoutSeconds }),
      integrator: integratorGrant({ db, box, timeoutSeconds, allowPrivateAddresses: allowsPrivateAddresses(config) }),
    },
  });
}

/** `/addons/v1`: the registry API, behind the API's authentication and its own credentials check. */
function registryHandlers(deps: AddonRuntimeDeps, box: SecretBox): RequestHandler[] {
  const { config, db } = deps;
  return [
    requireUserAgent,
    authenticate({ db, bearer: deps.bearer }),
    requireRegistryCredentials,
    express.json({ limit: config.addonMaxBundleBytes + 262_144 }),
    registryRouter({ db, box, maxBundleBytes: config.addonMaxBundleBytes, pages: deps.pages }),
    registryApplicationsRouter({ db, box }),
  ];
}

/** A page's installations, their bundles and states, and the fetch proxy, behind the add-on session. */
function mountInstallationRoutes(
  router: Router,
  { deps, vault, loopback, lifecycle }: RuntimeParts,
  tokens: RefreshEngine,
  revoking: RevokeDeps,
): void {
  const { config, db } = deps;
  const limits = {
    maxRequestBytes: config.maxBodyBytes,
    replayBytes: Math.min(config.maxBodyBytes, config.addonReplayBytes),
    maxResponseBytes: config.addonMaxResponseBytes,
    headersTimeoutMs: config.addonFetchTimeoutMs,
    totalTimeoutMs: config.addonFetchTimeoutMs * 4,
  };
  router.post(
    '/installations/:id/fetch/:side',
    ...fetchProxy({
      db,
      vault,
      proxyCalls: deps.proxyCalls,
      tokens,
      loopback,
      baseUrl: config.baseUrl,
      limits,
      allowPrivateAddresses: allowsPrivateAddresses(config),
      metrics: deps.metrics ?? NO_METRICS,
      lifecycle,
    }),
  );
  // After the proxy, the runtime's busiest route (no path of these is one of its): a call is matched against none of them.
  const session = requireAddonSession();
  router.get('/installations', session, listInstallationsRoute({ db, vault, baseUrl: config.baseUrl }));
  router.get('/installations/:id/bundle.js', session, installationBundleRoute({ db }));
  router.get('/installations/:id/state', session, installationStateRoute({ db, vault }));
  router.post('/installations/:id/revoke', session, requireAddonCsrf, revokeAuthorizationRoute(revoking));
  router.use('/installations', addonErrorHandler(deps.logger));
}

/** The handshake's routes, and the mark of the provider's consent its step 3 requires (step 1). */
function mountHandshake(router: Router, { deps, clock, box, vault }: RuntimeParts): void {
  const { config, db } = deps;
  onAuthorizationCodeIssued(deps.provider, recordServiceConsent(db, vault.store));
  router.use(
    handshakeRouter({
      db,
      box,
      vault,
      config,
      clock,
      logger: deps.logger,
      provider: deps.provider,
      tokenTimeoutSeconds: config.addonTokenTimeoutSeconds,
    }),
  );
}
