/**
 * A host in a process of its own for the refresh engine's cross-process tests: `createHost` on the
 * PostgreSQL database named by argv[2], the public base URL argv[3] (shared with the test's host, as
 * behind a load balancer), served on 127.0.0.1:0. Prints `listening <port>` once it serves.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHost } from '#host/app.ts';
import { openDatabase } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { testConfig } from '../../../support/host.ts';

const [databaseUrl, baseUrl, tokenTimeoutSeconds] = process.argv.slice(2);
const db = await openDatabase({ databaseUrl });
const host = await createHost({
  config: testConfig({ baseUrl, addonSweepIntervalSeconds: 0, addonTokenTimeoutSeconds: Number(tokenTimeoutSeconds) }),
  db,
  logger: createLogger('silent'),
});
const server = createServer(host.app);
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
