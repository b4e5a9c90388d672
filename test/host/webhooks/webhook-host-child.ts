/**
 * A host process for the webhook crash and multi-process tests: the database named by WEBHOOK_CHILD_DATABASE_URL
 * (PostgreSQL) or WEBHOOK_CHILD_DATA_DIR (an embedded database on disk), its delivery worker on, listening on a free
 * port it prints as `port <n>`. The test SIGKILLs it, or sends SIGTERM to close it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHost } from '#host/app.ts';
import { resolveHostConfig } from '#host/config.ts';
import { openDatabase } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET } from '../../support/constants.ts';

const db = await openDatabase({
  databaseUrl: process.env.WEBHOOK_CHILD_DATABASE_URL,
  dataDir: process.env.WEBHOOK_CHILD_DATA_DIR,
});
const config = resolveHostConfig(
  {
    baseUrl: 'http://localhost:4000',
    platformName: process.env.WEBHOOK_CHILD_NAME ?? 'child',
    dataDir: 'memory://',
    logLevel: 'silent',
    sessionSecret: TEST_SESSION_SECRET,
    encryptionKeys: [TEST_ENCRYPTION_KEY],
    rateLimit: 'off',
    addonSweepIntervalSeconds: 0,
    listRefreshIntervalSeconds: 0,
    embeddedMaintenanceIntervalSeconds: 0,
    addonAllowPrivateAddresses: true,
    webhookPollIntervalMs: 100,
    webhookTimeoutMs: 5000,
    webhookConcurrency: Number(process.env.WEBHOOK_CHILD_CONCURRENCY ?? 16),
  },
  {},
);
const host = await createHost({ config, db, logger: createLogger('silent') });
const server = createServer(host.app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`port ${(server.address() as AddressInfo).port}`);
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void host.close().then(() => db.close());
});
