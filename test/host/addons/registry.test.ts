import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integratorSecretAad } from '#host/addons/registry/installations.ts';
import { main } from '@addon-kit/host/cli';
import { addonCommand } from '#host/cli/addon-command.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { DEVELOPMENT_DEFAULTS } from '#integrator/config.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, personId } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { loggedIn, organizationId, testBox } from './fixtures.ts';

let t: HttpTestHost;
let appId: string;
let dir: string;
let env: NodeJS.ProcessEnv;

/** A CommandIo that keeps what was written. */
function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err };
}

async function patEnv(email: string): Promise<NodeJS.ProcessEnv> {
  const token = await createPersonalAccessToken(t.db, await personId(t.db, email), 'addon push');
  return { ADDON_KIT_PAT_CLIENT_ID: token.client_id, ADDON_KIT_PAT_SECRET: token.secret };
}

function betaEnvironment(orgIds: number[]) {
  return {
    integrator_oauth: {
      authorize_url: 'https://integrator.example/oauth/authorize',
      token_url: 'https://integrator.example/oauth/token',
      redirect_url: 'https://integrator.example/addon/complete',
      client_id: 'beta-client',
      client_secret: '${BETA_SECRET}',
      scopes: ['messages'],
    },
    integrator_api: { base_url: 'https://integrator.example', allow: [{ method: 'GET', path: '/api/messages' }] },
    ui_extensions: ['people.list.send_message'],
    organization_ids: orgIds,
    ui_origins: ['https://cdn.integrator.example'],
  };
}

beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  const app = await createOAuthApplication(t.db, testBox(), {
    organizationId: await organizationId(t.db, 'demo'),
    name: 'Messages add-on',
    redirectUris: ['http://localhost:4100/addon/complete'],
  });
  appId = app.id;
  dir = await mkdtemp(join(tmpdir(), 'addon-push-'));
  await writeFile(join(dir, 'addon.js'), 'export default function addon() { return 1; }');
  const sample = JSON.parse(
    await import('node:fs/promises').then((fs) =>
      fs.readFile(new URL('../../../addon.config.json', import.meta.url), 'utf8'),
    ),
  );
  sample.environments.beta = betaEnvironment([Number(await organizationId(t.db, 'other'))]);
  sample.environments.production = {
    ...betaEnvironment([]),
    integrator_oauth: { ...betaEnvironment([]).integrator_oauth, client_secret: '${PROD_SECRET}' },
  };
  await writeFile(join(dir, 'addon.config.json'), JSON.stringify(sample));
  env = { ...(await patEnv('admin@demo.test')), ADDON_OAUTH_APPLICATION_ID: appId, ADDON_KIT_BASE_URL: t.baseUrl };
});
afterAll(() => t.close());

const push = (extra: string[] = [], e = env) => {
  const c = captureIo();
  return addonCommand(
    [
      'push',
      '--env',
      'development',
      '--config',
      join(dir, 'addon.config.json'),
      '--bundle',
      join(dir, 'addon.js'),
      ...extra,
    ],
    c.io,
    e,
  ).then((code) => ({ code, ...c }));
};

describe('addon-kit addon push', () => {
  it('registers the sample config and bundle in development with the template integrator defaults [push]', async () => {
    const first = await push();
    expect(first.err).toEqual([]);
    expect(first.code).toBe(0);
    expect(first.out).toEqual([
      expect.stringMatching(
        new RegExp(`^pushed add-on ${appId} to development: version 1 \\(bundle sha256 [0-9a-f]{64}\\)$`),
      ),
    ]);
    const { rows } = await t.db.query<{
      id: string;
      integrator_oauth: Record<string, unknown>;
      integrator_client_secret_encrypted: string;
      scopes: string[];
      ui_extensions: Record<string, unknown>;
    }>(
      `SELECT v.id::text, v.integrator_oauth, v.integrator_client_secret_encrypted, v.scopes, v.ui_extensions FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1`,
      [appId],
    );
    expect(rows).toHaveLength(1);
    // The secret is sealed apart; the stored settings do not hold it.
    expect(rows[0]!.integrator_oauth).toEqual({
      authorize_url: 'http://localhost:4100/oauth/authorize',
      token_url: 'http://localhost:4100/oauth/token',
      redirect_url: 'http://localhost:4100/addon/complete',
      client_id: DEVELOPMENT_DEFAULTS.clientId,
      scopes: ['messages'],
    });
    expect(testBox().open(rows[0]!.integrator_client_secret_encrypted, integratorSecretAad(rows[0]!.id))).toBe(
      DEVELOPMENT_DEFAULTS.clientSecret,
    );
    expect(rows[0]!.scopes).toEqual(['people']);
    expect(Object.keys(rows[0]!.ui_extensions).sort()).toEqual([
      'people.list.send_message',
      'people.profile.custom_tab',
    ]);

    // The same bundle and settings again: the live version stays, no version is added.
    const second = await push();
    expect(second.out).toEqual([
      expect.stringMatching(
        new RegExp(`^add-on ${appId} in development is unchanged: version 1 \\(bundle sha256 [0-9a-f]{64}\\) is live$`),
      ),
    ]);
    await writeFile(join(dir, 'addon.js'), 'export default function addon() { return 2; }');
    const third = await push();
    expect(third.out[0]).toMatch(/^pushed add-on \d+ to development: version 2 /);
    const { rows: versions } = await t.db.query(
      'SELECT v.version FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1 ORDER BY v.version',
      [appId],
    );
    expect(versions).toEqual([{ version: 1 }, { version: 2 }]);

    // The lifecycle webhook_url is kept per version; changing it alone is a new version.
    const webhookUrls = async () =>
      (
        await t.db.query<{ webhook_url: string | null }>(
          'SELECT v.webhook_url FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1 ORDER BY v.version',
          [appId],
        )
      ).rows.map((r) => r.webhook_url);
    expect(await webhookUrls()).toEqual([
      'http://localhost:4100/webhooks/addon-kit',
      'http://localhost:4100/webhooks/addon-kit',
    ]);
    const config = JSON.parse(await readFile(join(dir, 'addon.config.json'), 'utf8'));
    const moved = structuredClone(config);
    moved.environments.development.webhook_url = 'http://localhost:4100/webhooks/other';
    await writeFile(join(dir, 'addon.config.json'), JSON.stringify(moved));
    try {
      expect((await push()).out[0]).toMatch(/^pushed add-on \d+ to development: version 3 /);
      delete moved.environments.development.webhook_url;
      await writeFile(join(dir, 'addon.config.json'), JSON.stringify(moved));
      expect((await push()).out[0]).toMatch(/^pushed add-on \d+ to development: version 4 /);
      expect((await push()).out[0]).toMatch(/ is unchanged: version 4 /);
    } finally {
      await writeFile(join(dir, 'addon.config.json'), JSON.stringify(config));
    }
    expect(await webhookUrls()).toEqual([
      'http://localhost:4100/webhooks/addon-kit',
      'http://localhost:4100/webhooks/addon-kit',
      'http://localhost:4100/webhooks/other',
      null,
    ]);
  });

  it('lists every config problem and registers nothing [invalid config]', async () => {
    const broken = join(dir, 'broken.config.json');
    const sample = JSON.parse(await readFile(join(dir, 'addon.config.json'), 'utf8'));
    await writeFile(
      broken,
      JSON.stringify({
        ...sample,
        scopes: [],
        ui_extensions: { nowhere: sample.ui_extensions['people.list.send_message'] },
      }),
    );
    const result = await push(['--config', broken]);
    expect(result.code).toBe(1);
    expect(result.err).toEqual([
      `${broken} is not a valid add-on config:`,
      '  - scopes: Too small: expected array to have >=1 items',
      '  - ui_extensions.nowhere: Invalid key in record',
      '  - environments.development.ui_extensions.0: people.list.send_message is not declared under ui_extensions',
      '  - environments.development.ui_extensions.1: people.profile.custom_tab is not declared under ui_extensions',
    ]);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM addons WHERE oauth_application_id = $1', [appId]);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('exits 2 with a usage line for half a personal access token or a bad environment [usage]', async () => {
    const c = captureIo();
    const { ADDON_KIT_PAT_SECRET: _s, ...noSecret } = env;
    const saved = { ...process.env };
    Object.assign(process.env, noSecret);
    delete process.env.ADDON_KIT_PAT_SECRET;
    try {
      expect(
        await main(
          [
            'addon',
            'push',
            '--env',
            'development',
            '--config',
            join(dir, 'addon.config.json'),
            '--bundle',
            join(dir, 'addon.js'),
          ],
          c.io,
        ),
      ).toBe(2);
      expect(await main(['addon', 'push', '--env', 'staging'], c.io)).toBe(2);
    } finally {
      process.env = saved;
    }
    expect(c.err).toEqual([
      'addon-kit addon: set both ADDON_KIT_PAT_CLIENT_ID and ADDON_KIT_PAT_SECRET, or neither',
      'addon-kit addon: --env must be one of development, beta, production, got "staging"',
    ]);
  });

  it('is refused for a person who is not an organization administrator, and for another organization [403, 404]', async () => {
    const editor = await push([], { ...env, ...(await patEnv('editor@demo.test')) });
    expect(editor.code).toBe(1);
    expect(editor.err).toEqual([
      'the host refused the request (HTTP 403):',
      '  - Only organization administrators can register add-ons',
    ]);
    const other = await push([], { ...env, ...(await patEnv('admin@other.test')) });
    expect(other.code).toBe(1);
    expect(other.err).toEqual([
      'the host refused the request (HTTP 404):',
      '  - The resource you requested could not be found',
    ]);
  });
});

describe('PUT /addons/v1/applications/{oauth_application_id}/environments/{environment}', () => {
  it('answers 422 with one entry per config problem [validation]', async () => {
    const res = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/development`, {
      method: 'PUT',
      headers: {
        authorization: await basicAuthFor(t.db, 'admin@demo.test'),
        'user-agent': TEST_USER_AGENT,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        bundle: '',
        config: {
          oauth_application_id: Number(appId),
          scopes: [],
          ui_extensions: {},
          environments: { development: { ...betaEnvironment([]), ui_extensions: [] } },
        },
      }),
    });
    expect(res.status).toBe(422);
    expect((await res.json()).errors).toEqual([
      {
        status: '422',
        title: 'Validation Error',
        detail: 'environment variable BETA_SECRET is not set',
        source: { parameter: 'config.environments.development.integrator_oauth.client_secret' },
        meta: { resource: 'AddonConfig', associated_resources: [] },
      },
      {
        status: '422',
        title: 'Validation Error',
        detail: 'Too small: expected array to have >=1 items',
        source: { parameter: 'config.scopes' },
        meta: { resource: 'AddonConfig', associated_resources: [] },
      },
    ]);
  });

  it('answers 422 for ui_origins that are not origins, or not https outside development, one entry each [ui_origins]', async () => {
    const res = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/beta`, {
      method: 'PUT',
      headers: {
        authorization: await basicAuthFor(t.db, 'admin@demo.test'),
        'user-agent': TEST_USER_AGENT,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        bundle: 'x',
        config: {
          oauth_application_id: Number(appId),
          scopes: ['people'],
          ui_extensions: {
            'people.list.send_message': {
              title: 'Send',
              icon_url: 'https://cdn.integrator.example/i.svg',
              entry: 'send',
            },
          },
          environments: {
            beta: {
              ...betaEnvironment([]),
              integrator_oauth: { ...betaEnvironment([]).integrator_oauth, client_secret: 's' },
              ui_origins: [
                'https://cdn.integrator.example/images',
                'https://*.integrator.example',
                'http://cdn.integrator.example',
              ],
            },
          },
        },
      }),
    });
    expect(res.status).toBe(422);
    const entry = (parameter: string, detail: string) => ({
      status: '422',
      title: 'Validation Error',
      detail,
      source: { parameter },
      meta: { resource: 'AddonConfig', associated_resources: [] },
    });
    const notOrigin = 'must be an origin such as https://cdn.example.com (scheme, host and port only)';
    expect((await res.json()).errors).toEqual([
      entry('config.environments.beta.ui_origins.0', notOrigin),
      entry('config.environments.beta.ui_origins.1', notOrigin),
      entry('config.environments.beta.ui_origins.2', 'must be an https URL outside development'),
    ]);
    const { rows } = await t.db.query(
      "SELECT 1 FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1 AND v.environment = 'beta'",
      [appId],
    );
    expect(rows).toEqual([]);
  });

  it('answers 422 when the config names another application [oauth_application_id]', async () => {
    const res = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/development`, {
      method: 'PUT',
      headers: {
        authorization: await basicAuthFor(t.db, 'admin@demo.test'),
        'user-agent': TEST_USER_AGENT,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        bundle: 'x',
        config: {
          oauth_application_id: 999,
          scopes: ['people'],
          ui_extensions: {},
          environments: {
            development: {
              ...betaEnvironment([]),
              integrator_oauth: { ...betaEnvironment([]).integrator_oauth, client_secret: 's' },
              ui_extensions: [],
            },
          },
        },
      }),
    });
    expect(res.status).toBe(422);
    expect((await res.json()).errors[0]).toMatchObject({
      detail: `must be ${appId}, the application in the URL`,
      source: { parameter: 'config.oauth_application_id' },
    });
  });

  it('answers 401 without credentials and 404 for an unknown environment [auth, path]', async () => {
    const anonymous = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/development`, {
      method: 'PUT',
      headers: { 'user-agent': TEST_USER_AGENT },
    });
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/staging`, {
      headers: { authorization: await basicAuthFor(t.db, 'admin@demo.test'), 'user-agent': TEST_USER_AGENT },
    });
    expect(unknown.status).toBe(404);
  });

  it("answers 403 to another application's OAuth access token, even an administrator's with scope api [PAT or CLI only]", async () => {
    const other = await createOAuthApplication(t.db, testBox(), {
      organizationId: await organizationId(t.db, 'demo'),
      name: 'Some integration',
      redirectUris: ['https://integration.test/cb'],
    });
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: other.client_id,
      personId: await personId(t.db, 'admin@demo.test'),
      scopes: ['api', 'people'],
    });
    const res = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/production`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${issued.access_token}`,
        'user-agent': TEST_USER_AGENT,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ config: {}, bundle: 'x' }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: {
            description:
              'This request needs a personal access token (HTTP Basic) or the addon-kit CLI signed in (addon-kit login); ' +
              "other applications' OAuth access tokens are not accepted here",
          },
        },
      ],
    });
    const versions = await t.db.query(
      'SELECT 1 FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1 AND v.environment = $2',
      [appId, 'production'],
    );
    expect(versions.rows).toEqual([]);
  });
});

describe('addon-kit addon promote', () => {
  const promote = (from: string, to: string, extraEnv: NodeJS.ProcessEnv = {}) => {
    const c = captureIo();
    return addonCommand(['promote', from, to, '--config', join(dir, 'addon.config.json')], c.io, {
      ...env,
      ...extraEnv,
    }).then((code) => ({ code, ...c }));
  };

  it('promotes the live development bundle to beta for the listed organizations only [beta visibility]', async () => {
    const other = await loggedIn(t.baseUrl, 'admin@other.test');
    const before = JSON.parse(
      (await other.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    );
    expect(before.data).toEqual([]);

    const result = await promote('development', 'beta', { BETA_SECRET: 'beta-secret' });
    expect(result.err).toEqual([]);
    expect(result.out[0]).toMatch(
      new RegExp(`^promoted add-on ${appId} from development to beta: version 1 \\(bundle sha256 [0-9a-f]{64}\\)$`),
    );
    const { rows } = await t.db.query<{ environment: string; bundle_sha256: string; promoted_from_id: string | null }>(
      `SELECT v.environment, v.bundle_sha256, v.promoted_from_id::text FROM addon_versions v JOIN addons a ON a.id = v.addon_id WHERE a.oauth_application_id = $1 ORDER BY v.id`,
      [appId],
    );
    const dev = rows.filter((r) => r.environment === 'development').at(-1)!;
    const beta = rows.find((r) => r.environment === 'beta')!;
    expect(beta.bundle_sha256).toBe(dev.bundle_sha256);
    expect(beta.promoted_from_id).not.toBeNull();

    const after = JSON.parse(
      (await other.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    );
    expect(after.data.map((i: { environment: string }) => i.environment)).toEqual(['beta']);
    // What a page mounting the add-on needs for its renderer and its CSP img-src.
    expect(after.data[0].ui_origins).toEqual(['https://cdn.integrator.example']);
    // The owning organization sees development and beta; a member of an unlisted organization would see neither.
    const owner = await loggedIn(t.baseUrl, 'member@demo.test');
    const owned = JSON.parse(
      (await owner.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    );
    expect(owned.data.map((i: { environment: string }) => i.environment).sort()).toEqual(['beta', 'development']);
  });

  it('needs the target environment secrets only, and refuses going backwards or from an empty environment [rules]', async () => {
    const missing = await promote('beta', 'production');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(
      '  - environments.production.integrator_oauth.client_secret: environment variable PROD_SECRET is not set',
    );
    const backwards = await promote('beta', 'development');
    expect(backwards.code).toBe(1);
    expect(backwards.err).toEqual([
      'the host refused the request (HTTP 422):',
      '  - from: beta cannot be promoted to development: promotions go development → beta → production',
    ]);
    const ok = await promote('beta', 'production', { PROD_SECRET: 'prod-secret' });
    expect(ok.code).toBe(0);
  });

  it('makes production visible to every organization [production visibility]', async () => {
    const other = await loggedIn(t.baseUrl, 'admin@other.test');
    const list = JSON.parse(
      (await other.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    );
    expect(list.data.map((i: { environment: string }) => i.environment).sort()).toEqual(['beta', 'production']);
  });
});
