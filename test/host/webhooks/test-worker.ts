/** The delivery worker's settings in the webhook tests: 2 s an attempt, retries compressed 100×, 8 at a time, 50 ms polls. */
import type { SecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import type { WebhookWorkerOptions } from '#host/webhooks/delivery-worker.ts';

export function testWorkerOptions(db: Database, box: SecretBox): WebhookWorkerOptions {
  return {
    db,
    box,
    logger: createLogger('silent'),
    timeoutMs: 2000,
    retryScale: 0.01,
    concurrency: 8,
    pollIntervalMs: 50,
    retentionDays: 30,
    allowNonPublic: true,
    userAgent: 'addon-kit Webhooks',
  };
}
