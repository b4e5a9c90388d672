/**
 * The template integrator: an Express app with its own users, OAuth 2.0 authorization server,
 * handshake completion endpoint and a protected sample API.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { messagesRouter } from './api/messages.ts';
import { systemClock, type Clock } from './clock.ts';
import { resolveIntegratorConfig, type IntegratorConfig, type IntegratorConfigInput } from './config.ts';
import type { IntegratorContext } from './context.ts';
import { createLogger, type Logger } from './logger.ts';
import { loginRouter } from './login.ts';
import { authorizeRouter } from './oauth/authorize.ts';
import { COMPLETION_PATH, completeRouter, type HostTokensHandler } from './oauth/complete.ts';
import { tokenRouter } from './oauth/token.ts';
import { ADDON_KIT_WEBHOOK_PATH, addonKitWebhookRouter } from './webhooks/addon-kit-receiver.ts';
import { messagePage } from './pages/page.ts';
import { createPageSite, pageSiteRouter } from './pages/site.ts';
import { migrateIntegrator, openIntegratorDatabase, type Database } from './store/database.ts';
import { createTokenDeriver } from './store/tokens.ts';
import { pruneExpired } from './store/housekeeping.ts';
import { seedUsers } from './store/users.ts';

/** Inputs of `createIntegrator`. */
export interface CreateIntegratorOptions {
  /** Resolved configuration (see `resolveIntegratorConfig`). */
  config: IntegratorConfig;
  /** An open database; migrated and seeded with the configured users here. */
  db: Database;
  /** Clock deciding every expiry; defaults to the wall clock. */
  now?: Clock;
  logger?: Logger;
  /** Receives the host's tokens when step 2 exchanges the code. */
  onHostTokens?: HostTokensHandler;
  /**
   * Names a host OAuth application learnt at completion (development) for the consent page; an integrator beside
   * the host (`addon-kit start`'s) asks the host's database. Default: the registered client's name.
   */
  applicationName?: (oauthApplicationId: number) => Promise<string | undefined>;
}

/** A built integrator app. */
export interface Integrator {
  app: Express;
  config: IntegratorConfig;
  db: Database;
  /** The URLs an add-on config's `integrator_oauth` / `integrator_api` need. */
  urls: { authorize: string; token: string; redirect: string; apiBase: string; webhook: string };
  /** Releases what createIntegrator made (the database is the caller's). */
  close(): Promise<void>;
}

/**
 * Builds the integrator app over an open database (migrating it and seeding users): its OAuth 2.0 server, the
 * handshake's completion endpoint and the sample API. It does not listen; `startIntegrator` does.
 *
 * @example
 * ```ts
 * import {
 *   createIntegrator,
 *   openIntegratorDatabase,
 *   resolveIntegratorConfig,
 *   type HostTokens,
 * } from '@addon-kit/integrator-template';
 *
 * // Your own store of the host's tokens for the person (keep only what you need).
 * declare function saveHostTokens(tokens: HostTokens): Promise<void>;
 *
 * const config = resolveIntegratorConfig({ baseUrl: 'https://integrator.example', hostBaseUrl: 'https://host.example' });
 * const db = await openIntegratorDatabase({ dataDir: '.data/integrator' });
 * const integrator = await createIntegrator({
 *   config,
 *   db,
 *   onHostTokens: async (tokens) => saveHostTokens(tokens), // keep only what you need
 * });
 * integrator.app.listen(config.port);
 * ```
 */
export async function createIntegrator(options: CreateIntegratorOptions): Promise<Integrator> {
  const { config, db } = options;
  const now = options.now ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  await migrateIntegrator(db);
  await seedUsers(db, config.users, now());
  const ctx = integratorContext(options, logger, now);
  const housekeeping = await startHousekeeping(db, now, logger);

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(securityHeaders);
  app.use(pageSiteRouter(ctx.site));
  app.get('/', (_req, res) => {
    res
      .type('html')
      .send(
        messagePage(
          ctx.site,
          config.serviceName,
          'This server is the integrator side of an add-on. Sign in at /login.',
        ),
      );
  });
  app.use(loginRouter(ctx));
  app.use(authorizeRouter(ctx));
  app.use(tokenRouter(ctx));
  app.use(completeRouter(ctx, options.onHostTokens));
  app.use(messagesRouter(ctx));
  app.use(addonKitWebhookRouter(ctx));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', error_description: 'no such route' });
  });
  app.use(lastResort(logger));

  return {
    app,
    config,
    db,
    urls: {
      authorize: `${config.baseUrl}/oauth/authorize`,
      token: `${config.baseUrl}/oauth/token`,
      redirect: `${config.baseUrl}${COMPLETION_PATH}`,
      apiBase: config.baseUrl,
      webhook: `${config.baseUrl}${ADDON_KIT_WEBHOOK_PATH}`,
    },
    async close() {
      clearInterval(housekeeping);
    },
  };
}

/** Milliseconds between two housekeeping passes. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/** Prunes what is past use now, then hourly (store/housekeeping.ts); a failed pass is logged and tried next hour. */
async function startHousekeeping(db: Database, now: Clock, logger: Logger): Promise<NodeJS.Timeout> {
  const pass = async () => {
    try {
      const pruned = await pruneExpired(db, now());
      if (Object.values(pruned).some((n) => n > 0)) logger.info({ pruned }, 'housekeeping: deleted rows past use');
    } catch (error) {
      logger.warn({ err: error }, 'housekeeping failed; tried again in an hour');
    }
  };
  await pass();
  return setInterval(() => void pass(), HOUSEKEEPING_INTERVAL_MS).unref();
}

/** What every route of the integrator shares: configuration, database, logger, clock, session, page site. */
function integratorContext(options: CreateIntegratorOptions, logger: Logger, now: Clock): IntegratorContext {
  const { config, db } = options;
  return {
    config,
    db,
    logger,
    now,
    session: {
      cookieName: config.sessionCookieName,
      secret: config.secret,
      secure: config.baseUrl.startsWith('https:'),
    },
    site: createPageSite(config.serviceName),
    applicationName: options.applicationName,
    derive: createTokenDeriver(config.secret),
  };
}

/**
 * The headers of every response. The consent page must not be framed (clickjacking); no `form-action`, which would
 * block the redirect to the host after Allow in some browsers.
 */
function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    'Referrer-Policy': 'no-referrer',
  });
  next();
}

/** Last resort: log the failure, never show internals. */
function lastResort(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status =
      typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number'
        ? error.status
        : 500;
    if (status < 500)
      return res
        .status(status)
        .json({ error: 'invalid_request', error_description: 'the request could not be processed' });
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    res.status(500).json({ error: 'server_error', error_description: 'an internal error occurred' });
  };
}

/** Configuration overrides plus the runtime hooks of `startIntegrator`. */
export interface StartIntegratorOptions extends IntegratorConfigInput {
  /** Environment to read INTEGRATOR_* variables from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  now?: Clock;
  logger?: Logger;
  onHostTokens?: HostTokensHandler;
}

/** A listening integrator. */
export interface RunningIntegrator extends Integrator {
  server: Server;
  /** The address actually listened on, e.g. `http://127.0.0.1:4100`. */
  url: string;
}

/**
 * Resolves the configuration (every problem reported at once), opens and migrates the database
 * (PGlite in `<dataDir>/integrator`, or schema `databaseSchema` of `databaseUrl`) and listens.
 * `addon-kit start` calls this beside the host.
 *
 * @example
 * ```ts
 * import { startIntegrator } from '@addon-kit/integrator-template';
 *
 * // INTEGRATOR_* environment variables fill in what is not given here.
 * const integrator = await startIntegrator({ port: 4100, hostBaseUrl: 'http://127.0.0.1:4000' });
 * console.log(`integrator at ${integrator.url}; redirect_url ${integrator.urls.redirect}`);
 * // on shutdown:
 * await integrator.close();
 * ```
 */
export async function startIntegrator(options: StartIntegratorOptions = {}): Promise<RunningIntegrator> {
  const { env, now, logger, onHostTokens, ...input } = options;
  const config = resolveIntegratorConfig(input, env ?? process.env);
  const db = await openIntegratorDatabase({
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
    dataDir: config.dataDir,
  });
  let integrator: Integrator;
  try {
    integrator = await createIntegrator({
      config,
      db,
      ...(now ? { now } : {}),
      ...(logger ? { logger } : {}),
      ...(onHostTokens ? { onHostTokens } : {}),
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  const server = await new Promise<Server>((resolve, reject) => {
    const s = integrator.app.listen(config.port, config.bindAddress, (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  }).catch(async (error: unknown) => {
    // A busy port: nothing of this start stays open.
    await integrator.close();
    await db.close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  return {
    ...integrator,
    server,
    url: `http://${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await integrator.close();
      await db.close();
    },
  };
}
