import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHost, type Host } from '#host/app.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { deleteOAuthApplication, rotateClientSecret } from '#host/oauth/applications.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { withDatabaseName } from '../../support/global-setup.ts';
import { testConfig } from '../../support/host.ts';
import { createTestApplication, credentials, postOAuth, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { adminUrl, withDatabase } from '../../support/postgres.ts';

const template = inject('dbTemplate');

/** Rotates an application's secret as the developer pages do (through the applications' owner module). */
async function rotateSecret(db: Database, app: TestApplication): Promise<TestApplication> {
  const secret = await rotateClientSecret(db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    id: app.id,
    client_id: app.clientId,
  });
  return { ...app, clientSecret: secret };
}

/** An introspection the client authenticates for: 200 with its credentials right, 401 otherwise. */
const introspect = (baseUrl: string, app: TestApplication) =>
  postOAuth(baseUrl, '/oauth/introspect', { token: 'not-a-token', ...credentials(app) });

describe('POST /oauth/introspect [client cache, one process]', () => {
  let t: HttpTestHost;
  beforeAll(async () => {
    t = await startHttpTestHost();
  });
  afterAll(() => t.close());

  it('refuses a rotated-out secret and accepts the new one on the very next request [secret rotation]', async () => {
    const app = await createTestApplication(t.db, { name: 'Cached' });
    expect((await introspect(t.baseUrl, app)).status).toBe(200);
    expect((await introspect(t.baseUrl, app)).status).toBe(200);
    const rotated = await rotateSecret(t.db, app);
    const old = await introspect(t.baseUrl, app);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
    expect((await introspect(t.baseUrl, rotated)).status).toBe(200);
  });

  it('refuses a deleted application on the very next request [delete]', async () => {
    const app = await createTestApplication(t.db, { name: 'Deleted' });
    expect((await introspect(t.baseUrl, app)).status).toBe(200);
    const { rows } = await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'");
    expect(await deleteOAuthApplication(t.db, rows[0]!.id, app.id)).toBe(true);
    const res = await introspect(t.baseUrl, app);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('knows an application created after its client_id was asked for and not found [unknown, then created]', async () => {
    const res = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: 'x',
      client_id: 'later-created',
      client_secret: 's',
    });
    expect(res.status).toBe(401);
    const app = await createTestApplication(t.db, { name: 'Later' });
    await t.db.query("UPDATE oauth_applications SET client_id = 'later-created' WHERE id = $1", [app.id]);
    const { clientSecret } = await rotateSecret(t.db, { ...app, clientId: 'later-created' });
    expect((await introspect(t.baseUrl, { ...app, clientId: 'later-created', clientSecret })).status).toBe(200);
  });
});

describe('POST /oauth/introspect [client cache, two host processes on one PostgreSQL]', () => {
  const hosts: { host: Host; db: Database; server: Server }[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) {
      h.server.closeAllConnections();
      await new Promise<void>((resolve) => h.server.close(() => resolve()));
      await h.host.close();
      await h.db.close();
    }
  });

  it.skipIf(template.kind !== 'postgres')('sees a secret rotated by another process [NOTIFY]', async () => {
    if (template.kind !== 'postgres') return;
    const name = `${template.prefix}_${randomBytes(4).toString('hex')}`;
    await withDatabase(adminUrl(template.url), (admin) =>
      admin.exec(`CREATE DATABASE ${name} TEMPLATE ${template.database}`),
    );
    const dbUrl = withDatabaseName(template.url, name);
    for (let i = 0; i < 2; i++) {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const db = await openDatabase({ databaseUrl: dbUrl });
      const host = await createHost({
        config: testConfig({
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          addonSweepIntervalSeconds: 0,
        }),
        db,
        logger: createLogger('silent'),
      });
      server.on('request', host.app);
      hosts.push({ host, db, server });
    }
    const [a, b] = hosts.map((h) => `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`);
    const app = await createTestApplication(hosts[1]!.db, { name: 'Shared' });
    expect((await introspect(a!, app)).status).toBe(200);
    const rotated = await rotateSecret(hosts[1]!.db, app);
    // The other process hears of it through its LISTEN connection, moments after the commit.
    let status = 200;
    for (let tries = 0; tries < 200 && status === 200; tries++) {
      status = (await introspect(a!, app)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(401);
    expect((await introspect(a!, rotated)).status).toBe(200);
    expect((await introspect(b!, rotated)).status).toBe(200);
  });

  it.skipIf(template.kind === 'postgres')(
    'runs only on PostgreSQL: a PGlite database belongs to one process',
    () => {},
  );
});
