/**
 * The real host (createHost, default log level, default sweeper) on 127.0.0.1 port 0, over a prepared bench
 * database, with what one benchmark needs set up through the host's own functions and routes:
 *
 *   --scenario notes     a personal access token of admin@demo.test (P3)
 *   --scenario proxy     the sample add-on registered for --integrator-url, the installation created by
 *                        GET /addons/installations, a logged-in session, and the integrator token of
 *                        --integrator-token in the vault (P1)
 *   --scenario refresh   a confidential OAuth application and --tokens N refresh tokens issued by the provider (P2)
 *   --metrics-token T, --otlp-endpoint URL   metrics and span export on (P10)
 *
 * Reports `{url, …}` over IPC when ready; stops on SIGTERM.
 */
import { parseArgs } from 'node:util';
import { createHost } from '#host/app.ts';
import { createTokenVault } from '#host/addons/authorizations/token-vault.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { resolveHostConfig } from '#host/config.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { ensureSampleAddon } from '#host/demo/sample-addon.ts';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { TestBrowser } from '../../test/support/oauth-browser.ts';
import { BENCH_PASSWORD } from '../runner/databases.ts';
import { reportReady, stopOn } from '../runner/processes.ts';

/** What the host server reports. */
export interface HostServerInfo {
  url: string;
  pid: number;
  /** notes: the personal access token. */
  pat?: { clientId: string; secret: string };
  /** proxy: the installation and the browser session (cookie, CSRF token, Origin). */
  proxy?: { installationId: string; cookie: string; csrf: string; origin: string };
  /** refresh: the client and unused refresh tokens. */
  refresh?: { clientId: string; clientSecret: string; tokens: string[] };
}

const ADMIN = 'admin@demo.test';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    scenario: { type: 'string' },
    'integrator-url': { type: 'string' },
    'integrator-token': { type: 'string' },
    'integrator-refresh-token': { type: 'string' },
    tokens: { type: 'string' },
    'metrics-token': { type: 'string' },
    'otlp-endpoint': { type: 'string' },
  },
});

async function personId(db: Database, email: string): Promise<{ id: string; organizationId: string }> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    'SELECT id::text, organization_id::text FROM people WHERE email = $1',
    [email],
  );
  return { id: rows[0]!.id, organizationId: rows[0]!.organization_id };
}

/** Signs in through /login and lists the installations (which creates them), as the browser does. */
async function browserSession(url: string): Promise<{ cookie: string; csrf: string; installationId: string }> {
  const browser = new TestBrowser(url);
  const form = await browser.request('/login');
  const done = await browser.submit(form, { email: ADMIN, password: BENCH_PASSWORD });
  if (done.status !== 303) throw new Error(`login answered ${done.status}`);
  const list = await browser.request('/addons/installations', { headers: { accept: 'application/json' } });
  const body = JSON.parse(list.body) as { data: { id: string }[]; csrf_token: string };
  if (list.status !== 200 || !body.data[0])
    throw new Error(`GET /addons/installations answered ${list.status}: ${list.body}`);
  return {
    cookie: browser.jar.header(`/addons/installations/${body.data[0].id}/fetch/integrator`),
    csrf: body.csrf_token,
    installationId: body.data[0].id,
  };
}

const db = await openDatabase({ dataDir: values['data-dir'], databaseUrl: values['database-url'] });
const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
const url = `http://127.0.0.1:${listener.port}`;
// The API rate limit off (its default, 100 per 20 s, would refuse the load; its own cost is bench/rate-limit.ts's).
const config = resolveHostConfig({
  port: listener.port,
  baseUrl: url,
  dataDir: values['data-dir'] ?? 'memory://',
  rateLimit: 'off',
  // P10: metrics (every request measured) and span export on.
  metricsToken: values['metrics-token'],
  otlpEndpoint: values['otlp-endpoint'],
});
const box = createSecretBox(config.encryptionKeys);
const admin = await personId(db, ADMIN);

// The add-on must exist before its routes see the first request (registered as `start` registers the sample).
if (values.scenario === 'proxy') {
  await ensureSampleAddon(db, box, {
    integratorUrl: values['integrator-url']!,
    bundle: 'export default () => {}',
    env: {},
  });
}
const host = await createHost({ config, db });
listener.attach(host.app);
const info: HostServerInfo = { url, pid: process.pid };

if (values.scenario === 'notes') {
  const pat = await createPersonalAccessToken(db, admin.id, 'bench');
  info.pat = { clientId: pat.client_id, secret: pat.secret };
} else if (values.scenario === 'proxy') {
  const session = await browserSession(url);
  const vault = createTokenVault(db, box);
  const record = await vault.ensure(session.installationId, admin.id);
  // The handshake's own moves (the state machine refuses shortcuts): host grant stored, integrator pending, ready.
  await vault.saveServiceTokens(
    record.id,
    { accessToken: 'unused-host-token', refreshToken: undefined, expiresAt: undefined, scope: 'people' },
    ['people'],
  );
  await vault.setState(record.id, 'integrator_pending');
  await vault.saveIntegratorTokens(
    record.id,
    {
      accessToken: values['integrator-token']!,
      refreshToken: values['integrator-refresh-token'],
      expiresAt: new Date(Date.now() + 3600_000),
      scope: 'messages',
    },
    { state: 'ready' },
  );
  info.proxy = { ...session, origin: url };
} else if (values.scenario === 'refresh') {
  const app = await createOAuthApplication(db, box, {
    organizationId: admin.organizationId,
    name: 'Bench refresh',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const tokens: string[] = [];
  for (let i = 0; i < Number(values.tokens ?? 100); i++) {
    tokens.push(
      (
        await issueTokensForPerson(host.oauthProvider, db, {
          clientId: app.client_id,
          personId: admin.id,
          scopes: ['people'],
        })
      ).refresh_token,
    );
  }
  info.refresh = { clientId: app.client_id, clientSecret: app.client_secret!, tokens };
}

stopOn(async () => {
  await listener.close();
  await host.close();
  await db.close();
});
reportReady(info);
