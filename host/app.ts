/**
 * createHost: the platform's wiring only — middleware order, routers, error handling. Logic lives in the domain
 * folders; the demo is not part of it (`start` adds its pages through `routers`).
 */
import express, { type Express, type RequestHandler, type Router } from 'express';
import { createEmbedderRouter } from '@addon-kit/sdk/server';
import { authenticate, type BearerVerifier } from './auth/authenticate.ts';
import { requireScope, type Scope } from './auth/require-scope.ts';
import { configureHostSession } from './auth/session.ts';
import { requireUserAgent } from './auth/user-agent.ts';
import type { HostConfig } from './config.ts';
import { developerApiRouter } from './api/developer-api-router.ts';
import { API_PREFIX } from './openapi/developer-api-document.ts';
import { openApiRouter } from './openapi/developer-api-router.ts';
import { currentApi, documentLinks, peopleApi, servedDocuments } from './openapi/apis.ts';
import { docsRouter } from './docs/docs-router.ts';
import { documentsRouter } from './openapi/documents-router.ts';
import { currentRouter } from './current/me.ts';
import { peopleRouter } from './people/index.ts';
import type { Database } from './db/database.ts';
import { errorHandler, notFound } from './http/error-handler.ts';
import { healthCheck } from './http/health.ts';
import { baselineHeaders } from './http/baseline-headers.ts';
import { rejectMalformedUrl } from './http/reject-malformed-url.ts';
import { requestContext } from './http/request-context.ts';
import type { Logger } from './logger.ts';
import { measureRequests, metricsEndpoint, observeOAuthGrants, type HostMetrics } from './metrics/index.ts';
import { homeRouter } from './home/home-page.tsx';
import { loginRouter } from './pages/login.tsx';
import { pageAssetsRouter } from './pages/page-assets.ts';
import { pageErrors } from './pages/page-errors.tsx';
import { addonSdkDir, createAddonRuntime, type AddonPages, type AddonRuntime } from './addons/index.ts';
import { oauthRouter } from './oauth/router.ts';
import { startBackgroundWork } from './background-work.ts';
import { createServices, type Services } from './services.ts';
import { developerRouter } from './developer/router.tsx';
import {
  WEBHOOKS_DOCUMENT_LINK,
  WEBHOOKS_PREFIX,
  webhooksOpenApiRouter,
  webhooksRouter,
  type WebhookWorker,
} from './webhooks/index.ts';
import type Provider from 'oidc-provider';

export interface HostDeps {
  config: HostConfig;
  db: Database;
  logger?: Logger;
  /** Bearer token checks; the host's OAuth provider by default. */
  bearer?: BearerVerifier;
  /** Current time; tests control it. Defaults to the system clock. */
  now?: () => Date;
  /** Routers mounted after the platform's own routes (`start` adds the demo pages here). */
  routers?: Router[];
  /** Pages among those routers that mount add-ons (the demo's List page): a push names one (`links.preview`). */
  addonPages?: AddonPages | undefined;
  /** The metrics to report to; by default the host's own when the configuration exposes them, none otherwise. */
  metrics?: HostMetrics;
}

export interface Host {
  app: Express;
  config: HostConfig;
  db: Database;
  logger: Logger;
  /** The OAuth 2.0 / OpenID Connect provider (host/oauth/provider.ts). */
  oauthProvider: Provider;
  /** What the host counts (host/metrics); `start` serves them on the metrics port when one is configured. */
  metrics: HostMetrics;
  /**
   * Shutdown has begun: `/health` answers 503 `draining` from now on while every other route still serves, so a
   * load balancer moves away before the listener stops taking connections.
   */
  drain(): void;
  /** Stops background work (the database is the caller's to close). */
  close(): Promise<void>;
}

/**
 * Builds the host platform over an open, migrated database: its Express app (the OAuth provider, the JSON APIs,
 * the pages, the add-on runtime) and its background work (the List scheduler, OAuth housekeeping, the token
 * sweeper). It does not listen, seed or start the demo: `startHost` (main.ts) does what `addon-kit start` does.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createHost, migrate, openDatabase, resolveHostConfig } from '@addon-kit/host';
 *
 * const config = resolveHostConfig({ port: 4000, baseUrl: 'http://127.0.0.1:4000', dataDir: '.data' });
 * const db = await openDatabase({ dataDir: `${config.dataDir}/host` });
 * await migrate(db);
 * const host = await createHost({ config, db });
 * const server = createServer(host.app).listen(config.port);
 * // on shutdown:
 * host.drain();
 * server.close();
 * await host.close();
 * await db.close();
 * ```
 */
export async function createHost(deps: HostDeps): Promise<Host> {
  // Its steps, in order: the order of the middleware and routers is the order of these calls.
  const services = await createServices(deps);
  const lifecycle = { draining: false };
  const app = createBaseApp(deps, services);
  const worker: { current?: WebhookWorker } = {};
  // First after the base: no other router serves `/addons`, and a proxied call then passes no other router's layers.
  const addons = mountAddons(app, deps, services);
  mountHostRoutes(app, deps, services, lifecycle);
  mountApis(app, deps, services, worker);
  mountSignIn(app, deps, services);
  const background = startBackgroundWork({ ...services, config: deps.config, db: deps.db, now: deps.now });
  worker.current = background.webhooks;
  mountPages(app, deps, services, worker, addons);
  app.use(notFound);
  app.use(pageErrors);
  app.use(errorHandler(services.logger));

  return {
    app,
    config: deps.config,
    db: deps.db,
    logger: services.logger,
    oauthProvider: services.oauthProvider,
    metrics: services.metrics,
    drain: () => {
      lifecycle.draining = true;
    },
    close: async () => {
      await background.stop();
      await addons.close();
      await services.limits.close();
      await services.clientCache.close();
      await services.proxyCalls.close();
      await services.tracing.shutdown();
    },
  };
}

/** The app with what every request passes through first. */
function createBaseApp(deps: HostDeps, services: Services): Express {
  const { config, db } = deps;
  const { logger, metrics } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.locals.baseUrl = config.baseUrl;
  app.locals.platformName = config.platformName;
  configureHostSession(app, { config, db });
  app.use(requestContext(logger));
  app.use(services.tracing.traceRequests);
  app.use(measureRequests(metrics));
  app.use(baselineHeaders(config.baseUrl));
  app.use(rejectMalformedUrl);
  observeOAuthGrants(services.oauthProvider, metrics);
  return app;
}

/** The page assets, `/health` and `/metrics`: their own paths only, so they follow `/addons` (a proxied call skips them). */
function mountHostRoutes(app: Express, deps: HostDeps, services: Services, lifecycle: { draining: boolean }): void {
  const { config, db } = deps;
  const { logger, metrics } = services;
  app.use(pageAssetsRouter());
  app.get('/health', healthCheck(db, logger, lifecycle));
  app.get('/metrics', metricsEndpoint(metrics, config.metricsToken));
}

/** The JSON APIs (product APIs, `/api/v2`, `/webhooks/v2`), their OpenAPI documents and `/docs`. */
function mountApis(app: Express, deps: HostDeps, services: Services, worker: { current?: WebhookWorker }): void {
  const { config, db } = deps;
  const { limits, bearer, box } = services;
  // strict: false — `null`, `1`, `"x"` are JSON, so they reach the payload check (400 invalid_resource_payload)
  // instead of being reported as unparsable (invalid_json).
  const json = express.json({
    limit: config.maxBodyBytes,
    strict: false,
    type: ['application/json', 'application/vnd.api+json'],
  });
  const api = (scope: Scope | undefined, router: Router): RequestHandler[] => [
    requireUserAgent,
    limits.api(authenticate({ db, bearer, ...(deps.now ? { now: deps.now } : {}) })),
    ...(scope ? [requireScope(scope)] : []),
    json,
    router,
  ];
  // Adding a product API is one entry here: it is mounted, described and listed on /docs.
  const productApis = [currentApi(currentRouter()), peopleApi(peopleRouter({ db }))];
  app.use(documentsRouter(servedDocuments(productApis, config.baseUrl)));
  // The webhooks API serves its own document (host/webhooks/api): listed after the others.
  app.use(docsRouter({ db, now: deps.now, documents: [...documentLinks(productApis), WEBHOOKS_DOCUMENT_LINK] }));
  for (const product of productApis) app.use(product.prefix, ...api(product.scope?.name, product.router));
  app.use(openApiRouter({ baseUrl: config.baseUrl }));
  app.use(API_PREFIX, ...api('api', developerApiRouter({ db, now: deps.now })));
  app.use(webhooksOpenApiRouter({ baseUrl: config.baseUrl }));
  app.use(WEBHOOKS_PREFIX, ...api('webhooks', webhooksRouter({ db, box, wake: () => worker.current?.wake() })));
}

/** `/login` and the OAuth provider's routes. */
function mountSignIn(app: Express, deps: HostDeps, services: Services): void {
  const { db, config } = deps;
  const { limits } = services;
  app.use(loginRouter({ db, throttle: limits.signIn }));
  app.use(
    oauthRouter({
      provider: services.oauthProvider,
      db,
      baseUrl: config.baseUrl,
      throttle: limits.signIn,
      clientAuth: limits.clientAuth,
    }),
  );
}

/** The add-on runtime (`/addons`: installations, bundles, the handshake, the fetch proxy) and its registry (`/addons/v1`). */
function mountAddons(app: Express, deps: HostDeps, services: Services) {
  const { config, db } = deps;
  const addons = createAddonRuntime({
    app,
    config,
    db,
    logger: services.logger,
    bearer: services.bearer,
    provider: services.oauthProvider,
    proxyCalls: services.proxyCalls,
    pages: deps.addonPages,
    metrics: services.metrics,
    ...(deps.now ? { clock: { now: () => deps.now!().getTime() } } : {}),
  });
  app.use('/addons/v1', ...addons.registry);
  app.use('/addons', addons.router);
  return addons;
}

/** The developer pages, the embedder bundle, the home page and the caller's routers. */
function mountPages(
  app: Express,
  deps: HostDeps,
  services: Services,
  worker: { current?: WebhookWorker },
  addons: AddonRuntime,
): void {
  const { config, db } = deps;
  app.use(
    '/developer',
    developerRouter({
      db,
      box: services.box,
      throttle: services.limits.signIn,
      now: deps.now,
      wakeWebhooks: () => worker.current?.wake(),
      // The account page revokes add-on authorizations as the runtime's own route does.
      addonRevoking: addons.revoking,
    }),
  );
  // The embedder bundle that pages mounting add-ons import.
  app.use('/assets/addon-sdk', createEmbedderRouter({ bundleDir: addonSdkDir(config) }));
  app.use(homeRouter({ db }));
  for (const router of deps.routers ?? []) app.use(router);
}
