/** createHost: wiring only — middleware order, routers, error handling. Logic lives in the domain folders. */
import express, { type Express, type RequestHandler, type Router } from 'express';
import { authenticate, noBearerTokens, type BearerVerifier } from './auth/authenticate.ts';
import { requireScope, type Scope } from './auth/require-scope.ts';
import { requireUserAgent } from './auth/user-agent.ts';
import type { HostConfig } from './config.ts';
import { developerApiRouter } from './api/developer-api-router.ts';
import { openApiRouter } from './api/openapi-router.ts';
import { currentRouter } from './current/me.ts';
import { peopleRouter } from './people/people-router.ts';
import type { Database } from './db/database.ts';
import { errorHandler, notFound } from './http/error-handler.ts';
import { requestContext } from './http/request-context.ts';
import { createLogger, type Logger } from './logger.ts';

export interface HostDeps {
  config: HostConfig;
  db: Database;
  logger?: Logger;
  /** Bearer token checks (the OAuth provider); none by default. */
  bearer?: BearerVerifier;
  /** Current time; tests control it. Defaults to the system clock. */
  now?: () => Date;
}

export interface Host {
  app: Express;
  config: HostConfig;
  db: Database;
  logger: Logger;
  /** Stops background work (the database is the caller's to close). */
  close(): Promise<void>;
}

export async function createHost(deps: HostDeps): Promise<Host> {
  const { config, db } = deps;
  const logger = deps.logger ?? createLogger(config.logLevel);
  const bearer = deps.bearer ?? noBearerTokens;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.locals.baseUrl = config.baseUrl;
  app.use(requestContext(logger));

  app.get('/health', async (_req, res) => {
    await db.query('SELECT 1');
    res.json({ status: 'ok', database: db.kind });
  });

  const json = express.json({ limit: config.maxBodyBytes, type: ['application/json', 'application/vnd.api+json'] });
  const api = (scope: Scope | undefined, router: Router): RequestHandler[] => [
    requireUserAgent,
    authenticate({ db, bearer }),
    ...(scope ? [requireScope(scope)] : []),
    json,
    router,
  ];
  app.use('/current/v2', ...api(undefined, currentRouter()));
  app.use('/people/v2', ...api('people', peopleRouter({ db })));
  app.use(openApiRouter({ baseUrl: config.baseUrl }));
  app.use('/api/v2', ...api('api', developerApiRouter({ db, now: deps.now })));

  app.use(notFound);
  app.use(errorHandler(logger));

  return { app, config, db, logger, close: async () => {} };
}
