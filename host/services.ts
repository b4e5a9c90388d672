/**
 * What the host's routers share, made once per host (host/app.ts wires them in): logging, metrics, tracing, the
 * limits, the caches, the OAuth provider, bearer checks and the secret box.
 */
import type Provider from 'oidc-provider';
import type { BearerVerifier } from './auth/authenticate.ts';
import { metricsExposed, type HostConfig } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import type { Database } from './db/database.ts';
import { createProxyCallCache } from './addons/index.ts';
import { createHostLimits } from './limits/host-limits.ts';
import { createLogger, resolveLogFormat, type Logger } from './logger.ts';
import { createHostMetrics, NO_METRICS, type HostMetrics } from './metrics/index.ts';
import { oauthBearerVerifier } from './oauth/bearer.ts';
import { createClientCache } from './oauth/client-cache.ts';
import { createOAuthProvider } from './oauth/provider.ts';
import { createHostTracing } from './tracing/index.ts';

/** What the routers share. */
export interface Services {
  logger: Logger;
  metrics: HostMetrics;
  tracing: ReturnType<typeof createHostTracing>;
  limits: Awaited<ReturnType<typeof createHostLimits>>;
  clientCache: Awaited<ReturnType<typeof createClientCache>>;
  proxyCalls: Awaited<ReturnType<typeof createProxyCallCache>>;
  oauthProvider: Provider;
  bearer: BearerVerifier;
  box: SecretBox;
}

/** What making them needs: the host's configuration and database, and what a caller (a test) gives instead. */
export interface ServiceDeps {
  config: HostConfig;
  db: Database;
  logger?: Logger;
  bearer?: BearerVerifier;
  metrics?: HostMetrics;
}

export async function createServices(deps: ServiceDeps): Promise<Services> {
  const { config, db } = deps;
  const logger = deps.logger ?? createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat));
  const metrics = deps.metrics ?? (metricsExposed(config) ? createHostMetrics(db) : NO_METRICS);
  const tracing = createHostTracing({ otlpEndpoint: config.otlpEndpoint });
  const limits = await createHostLimits({ config, db, logger, metrics });
  const clientCache = await createClientCache(db);
  const proxyCalls = await createProxyCallCache(db);
  const oauthProvider = await createOAuthProvider({ config, db, logger, clientAuth: limits.clientAuth, clientCache });
  const bearer = deps.bearer ?? oauthBearerVerifier(oauthProvider, db);
  const box = createSecretBox(config.encryptionKeys);
  return { logger, metrics, tracing, limits, clientCache, proxyCalls, oauthProvider, bearer, box };
}
