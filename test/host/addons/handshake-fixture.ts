/**
 * The handshake's two real servers: a host (HTTP, ephemeral port) with the add-on's OAuth application,
 * and the template integrator registered for it; the add-on pushed to development through the registry.
 */
import { expect } from 'vitest';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import type { HostConfigInput } from '#host/config.ts';
import type { Database } from '#host/db/database.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import type { TestBrowser } from '../../support/oauth-browser.ts';
import { runAuthorization } from '../../support/oauth-flow.ts';
import {
  authorizeInBrowser,
  Browser,
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  startTestIntegrator,
  USER,
  type TestClock,
  type TestIntegrator,
} from '#integrator/test/support.ts';
import { organizationId, startAuthorization, testBox } from './fixtures.ts';

export interface HandshakeFixture {
  t: HttpTestHost;
  integrator: TestIntegrator;
  integratorDb: { db: Database; drop(): Promise<void> };
  /** The integer id of the add-on's OAuth application. */
  appId: string;
  close(): Promise<void>;
}

/** What a fixture may add: the environment's lifecycle `webhook_url` (the template's receiver), the integrator's clock. */
export interface HandshakeFixtureOptions {
  /** Declares `webhook_url` = the template integrator's receiver. */
  lifecycleWebhook?: boolean;
  integratorClock?: TestClock;
}

export async function startHandshakeFixture(
  config: HostConfigInput = {},
  options: HandshakeFixtureOptions = {},
): Promise<HandshakeFixture> {
  const t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0, ...config } });
  const org = await organizationId(t.db, 'demo');
  const app = await createOAuthApplication(t.db, testBox(), {
    organizationId: org,
    name: 'Messages add-on',
    redirectUris: ['http://127.0.0.1/pending'],
    addOnScopes: 'people',
  });
  const appId = app.id;
  const integratorDb = await createIntegratorTestDatabase();
  const integrator = await startTestIntegrator(
    integratorDb.db,
    {
      hostBaseUrl: t.baseUrl,
      oauthApplicationId: Number(appId),
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${t.baseUrl}/addons/authorizations/${appId}`],
          name: 'Test Add-on',
          host_name: 'Test Platform',
        },
      ],
    },
    options.integratorClock ? { clock: options.integratorClock } : {},
  );
  // The add-on's OAuth application sends step 2 to the integrator's completion endpoint.
  await t.db.query('UPDATE oauth_applications SET redirect_uris = $2 WHERE id = $1', [
    appId,
    [`${integrator.url}/addon/complete`],
  ]);
  const push = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/development`, {
    method: 'PUT',
    headers: {
      authorization: await basicAuthFor(t.db, 'admin@demo.test'),
      'user-agent': TEST_USER_AGENT,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      bundle: 'export default () => {}',
      config: {
        oauth_application_id: Number(appId),
        scopes: ['people'],
        ui_extensions: {
          'people.list.send_message': {
            title: 'Send a message',
            icon_url: `${integrator.url}/icon.svg`,
            entry: 'send-message',
          },
        },
        environments: {
          development: {
            integrator_oauth: {
              authorize_url: `${integrator.url}/oauth/authorize`,
              token_url: `${integrator.url}/oauth/token`,
              redirect_url: `${integrator.url}/addon/complete`,
              client_id: CLIENT_ID,
              client_secret: CLIENT_SECRET,
              scopes: ['messages'],
            },
            integrator_api: {
              base_url: integrator.url,
              allow: [
                { method: 'GET', path: '/api/messages' },
                { method: 'POST', path: '/api/messages' },
              ],
            },
            ui_extensions: ['people.list.send_message'],
            organization_ids: [],
            ...(options.lifecycleWebhook ? { webhook_url: integrator.integrator.urls.webhook } : {}),
          },
        },
      },
    }),
  });
  expect(push.status).toBe(201);
  return {
    t,
    integrator,
    integratorDb,
    appId,
    async close() {
      await integrator.close();
      await integratorDb.drop();
      await t.close();
    },
  };
}

/** Steps 0–6 for the logged-in browser `host`, as the person `USER` at the integrator; the installation's id. */
export async function completeHandshake(host: TestBrowser): Promise<string> {
  const list = JSON.parse(
    (await host.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
  ) as { data: { id: string }[] };
  const installation = list.data[0]!.id;
  const start = await startAuthorization(host, installation);
  expect(start.status).toBe(303);
  const completion = await runAuthorization(host, new URL(start.location!));
  const integratorBrowser = new Browser();
  const toAdvance = await integratorBrowser.fetch(completion.toString());
  const toIntegrator = await host.request(toAdvance.headers.get('location')!);
  expect(toIntegrator.status).toBe(303);
  const callback = await authorizeInBrowser(integratorBrowser, toIntegrator.location!, USER, 'allow');
  expect((await host.request(callback.toString())).status).toBe(200);
  return installation;
}

/** The lifecycle events the fixture's template integrator received and stored, by name, with their payloads. */
export async function receivedLifecycleEvents(f: HandshakeFixture, name: string): Promise<Record<string, unknown>[]> {
  const { rows } = await f.integrator.db.query<{ payload: string }>(
    'SELECT payload FROM addon_kit_events WHERE name = $1 ORDER BY received_at',
    [name],
  );
  return rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}
