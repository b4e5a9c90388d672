import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integratorClientSecret } from '#host/addons/registry/installations.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { ensureSampleAddon, SAMPLE_ADDON_NAME } from '#host/demo/sample-addon.ts';
import { DEVELOPMENT_DEFAULTS } from '#integrator/config.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;
const box = createSecretBox([TEST_ENCRYPTION_KEY]);
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

async function applications() {
  const { rows } = await db.query<{ id: string; organization: string; redirect_uris: string[]; add_on_scopes: string }>(
    'SELECT a.id::text, o.slug AS organization, a.redirect_uris, a.add_on_scopes FROM oauth_applications a JOIN organizations o ON o.id = a.organization_id WHERE a.name = $1',
    [SAMPLE_ADDON_NAME],
  );
  return rows;
}

async function versions() {
  const { rows } = await db.query<{
    id: string;
    version: number;
    environment: string;
    scopes: string[];
    ui_extensions: unknown;
    integrator_oauth: unknown;
    integrator_api: unknown;
    bundle: string;
  }>(
    'SELECT id::text, version, environment, scopes, ui_extensions, integrator_oauth, integrator_api, bundle FROM addon_versions ORDER BY id',
  );
  return rows;
}

const oauthAt = (base: string, clientId: string = DEVELOPMENT_DEFAULTS.clientId) => ({
  authorize_url: `${base}/oauth/authorize`,
  token_url: `${base}/oauth/token`,
  redirect_url: `${base}/addon/complete`,
  client_id: clientId,
  scopes: ['messages'],
});
const apiAt = (base: string) => ({
  base_url: base,
  allow: [
    { method: 'GET', path: '/api/messages' },
    { method: 'POST', path: '/api/messages' },
  ],
});

describe('ensureSampleAddon()', () => {
  it('creates the OAuth application in Demo Church and registers addon.config.json with the integrator URLs moved [first start]', async () => {
    const added = await ensureSampleAddon(db, box, {
      integratorUrl: 'http://127.0.0.1:4555',
      bundle: 'self.bundle = 1;',
      env: {},
    });
    expect(added.outcome).toBe('created');
    expect(await applications()).toEqual([
      {
        id: added.oauthApplicationId,
        organization: 'demo',
        redirect_uris: ['http://127.0.0.1:4555/addon/complete'],
        add_on_scopes: 'people',
      },
    ]);
    expect(await versions()).toEqual([
      {
        id: added.versionId,
        version: 1,
        environment: 'development',
        scopes: ['people'],
        ui_extensions: {
          'people.list.send_message': {
            title: 'Send a message',
            icon_url: 'http://localhost:4000/addons/assets/message.svg',
            entry: 'send-message',
          },
          'people.profile.custom_tab': {
            title: 'Messages',
            icon_url: 'http://localhost:4000/addons/assets/message.svg',
            entry: 'profile-tab',
          },
        },
        integrator_oauth: oauthAt('http://127.0.0.1:4555'),
        integrator_api: apiAt('http://127.0.0.1:4555'),
        bundle: 'self.bundle = 1;',
      },
    ]);
    expect(await integratorClientSecret(db, box, added.versionId)).toBe(DEVELOPMENT_DEFAULTS.clientSecret);
  });

  it('reuses the application and the live version when nothing changed [restart]', async () => {
    const before = await applications();
    const again = await ensureSampleAddon(db, box, {
      integratorUrl: 'http://127.0.0.1:4555',
      bundle: 'self.bundle = 1;',
      env: {},
    });
    expect(again).toEqual({
      oauthApplicationId: before[0]!.id,
      versionId: (await versions())[0]!.id,
      outcome: 'reused',
    });
    expect(await versions()).toHaveLength(1);
  });

  it('registers a new version and moves the redirect URI when the integrator moved [new port]', async () => {
    const moved = await ensureSampleAddon(db, box, {
      integratorUrl: 'http://localhost:4600/',
      bundle: 'self.bundle = 1;',
      env: {},
    });
    expect(moved.outcome).toBe('updated');
    expect((await applications())[0]!.redirect_uris).toEqual(['http://localhost:4600/addon/complete']);
    const live = (await versions()).at(-1)!;
    expect([live.id, live.version, live.integrator_oauth, live.integrator_api]).toEqual([
      moved.versionId,
      2,
      oauthAt('http://localhost:4600'),
      apiAt('http://localhost:4600'),
    ]);
  });

  it('registers a new version when the bundle or the integrator credentials changed [rebuilt, environment]', async () => {
    const rebuilt = await ensureSampleAddon(db, box, {
      integratorUrl: 'http://localhost:4600',
      bundle: 'self.bundle = 2;',
      env: {},
    });
    expect(rebuilt.outcome).toBe('updated');
    expect((await versions()).at(-1)!.bundle).toBe('self.bundle = 2;');
    const credentials = await ensureSampleAddon(db, box, {
      integratorUrl: 'http://localhost:4600',
      bundle: 'self.bundle = 2;',
      env: {
        INTEGRATOR_CLIENT_ID: 'my-host',
        INTEGRATOR_CLIENT_SECRET: 'my-host-secret-0123456789',
        ADDON_OAUTH_APPLICATION_ID: '999',
      },
    });
    expect(credentials.outcome).toBe('updated');
    const live = (await versions()).at(-1)!;
    expect([live.version, live.integrator_oauth]).toEqual([4, oauthAt('http://localhost:4600', 'my-host')]);
    expect(await integratorClientSecret(db, box, credentials.versionId)).toBe('my-host-secret-0123456789');
    // The application id always comes from the application itself, never from the environment.
    expect(credentials.oauthApplicationId).toBe((await applications())[0]!.id);
    expect(await applications()).toHaveLength(1);
  });
});
