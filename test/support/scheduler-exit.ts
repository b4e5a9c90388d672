/**
 * A host process with the List scheduler on, run as a child by test/host/people/list-scheduler.test.ts: it waits
 * for the scheduler to run a due List, closes the host and the database, and must then exit by itself (no
 * `process.exit`): a timer left behind would keep it alive.
 */
import { createHost } from '#host/app.ts';
import { resolveHostConfig } from '#host/config.ts';
import { openDatabase } from '#host/db/database.ts';
import { migrate } from '#host/db/migrate.ts';
import { createLogger } from '#host/logger.ts';
import { TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET } from './constants.ts';

const db = await openDatabase({ dataDir: 'memory://' });
await migrate(db);
const org = (
  await db.query<{ id: string }>("INSERT INTO organizations (name, slug) VALUES ('Exit', 'exit') RETURNING id::text")
).rows[0]!.id;
const list = (
  await db.query<{ id: string }>(
    "INSERT INTO lists (organization_id, name, auto_refresh, auto_refresh_frequency) VALUES ($1, 'due', true, 'hourly') RETURNING id::text",
    [org],
  )
).rows[0]!.id;
await db.query(
  "INSERT INTO list_rules (list_id, attribute, operator, value) VALUES ($1, 'membership', 'is', 'Member')",
  [list],
);
const config = resolveHostConfig(
  {
    baseUrl: 'http://localhost:4000',
    dataDir: 'memory://',
    logLevel: 'silent',
    sessionSecret: TEST_SESSION_SECRET,
    encryptionKeys: [TEST_ENCRYPTION_KEY],
    addonSweepIntervalSeconds: 0,
    listRefreshIntervalSeconds: 1,
  },
  {},
);
const host = await createHost({ config, db, logger: createLogger('silent') });
const refreshed = async () =>
  (await db.query<{ status: string }>('SELECT status FROM lists WHERE id = $1', [list])).rows[0]!.status;
while ((await refreshed()) === 'never_run') await new Promise((resolve) => setTimeout(resolve, 100));
console.log(`ran: ${await refreshed()}`);
await host.close();
await db.close();
console.log('closed');
