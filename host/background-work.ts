/**
 * What the host runs beside its routes: OAuth housekeeping, the List scheduler, the embedded database's
 * maintenance and the webhook worker; `stop` ends them in that order.
 */
import { allowsPrivateAddresses, type HostConfig } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Database } from './db/database.ts';
import { startEmbeddedMaintenance } from './db/embedded-maintenance.ts';
import type { Logger } from './logger.ts';
import type { HostMetrics } from './metrics/index.ts';
import { startOAuthHousekeeping } from './oauth/housekeeping.ts';
import { startListScheduler } from './people/index.ts';
import { startWebhookWorker } from './webhooks/index.ts';

export interface BackgroundDeps {
  config: HostConfig;
  db: Database;
  logger: Logger;
  metrics: HostMetrics;
  box: SecretBox;
  /** Current time; tests control it. */
  now?: (() => Date) | undefined;
}

/** OAuth housekeeping, the List scheduler, the embedded database's maintenance and the webhook worker. */
export function startBackgroundWork(deps: BackgroundDeps) {
  const { config, db, logger, metrics } = deps;
  const housekeeping = startOAuthHousekeeping(db, logger);
  const lists =
    config.listRefreshIntervalSeconds > 0
      ? startListScheduler({
          db,
          logger,
          intervalMs: config.listRefreshIntervalSeconds * 1000,
          baseUrl: config.baseUrl,
          onPass: (refreshed) => {
            for (const list of refreshed) metrics.listRun('scheduled', list.ok ? 'success' : 'failure');
          },
          ...(deps.now ? { now: deps.now } : {}),
        })
      : undefined;
  const maintenance = startEmbeddedMaintenance({
    db,
    logger,
    intervalMs: config.embeddedMaintenanceIntervalSeconds * 1000,
  });
  const webhooks =
    config.webhookPollIntervalMs > 0
      ? startWebhookWorker({
          db,
          box: deps.box,
          logger,
          timeoutMs: config.webhookTimeoutMs,
          retryScale: config.webhookRetryScale,
          concurrency: config.webhookConcurrency,
          pollIntervalMs: config.webhookPollIntervalMs,
          retentionDays: config.webhookRetentionDays,
          allowNonPublic: allowsPrivateAddresses(config),
          userAgent: `${config.platformName} Webhooks`,
          onAttempt: (outcome) => metrics.webhookDelivery(outcome),
        })
      : undefined;
  return {
    webhooks,
    stop: async () => {
      await lists?.stop();
      await webhooks?.stop();
      await maintenance.stop();
      housekeeping.stop();
    },
  };
}
