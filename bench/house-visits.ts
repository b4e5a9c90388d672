/**
 * Which files of the repository one request runs: `npx tsx --conditions=source bench/house-visits.ts`.
 * The host and the template integrator run in this process on an embedded database, set up as bench P1 and P3
 * set theirs up; each request is sent once to warm up, then V8's precise coverage is reset, the request sent
 * again, and every repository file with a function that ran in between is listed, per package and folder.
 * The add-on's side in the browser (the SDK's worker and host page) is not run here.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTokenVault } from '#host/addons/authorizations/token-vault.ts';
import { createHost } from '#host/app.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { resolveHostConfig } from '#host/config.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { openDatabase } from '#host/db/database.ts';
import { migrate } from '#host/db/migrate.ts';
import { seedDemo } from '#host/demo/seed/demo.ts';
import { ensureSampleAddon } from '#host/demo/sample-addon.ts';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { DEVELOPMENT_DEFAULTS, resolveIntegratorConfig } from '#integrator/config.ts';
import { createIntegrator } from '#integrator/server.ts';
import { openIntegratorDatabase } from '#integrator/store/database.ts';
import { issueTokenFamily } from '#integrator/store/tokens.ts';
import { TestBrowser } from '../test/support/oauth-browser.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PASSWORD = 'house-visits-password';
const ADMIN = 'admin@demo.test';

const parent = await mkdtemp(join(tmpdir(), 'addon-kit-house-'));
const integratorListener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
const integratorUrl = `http://127.0.0.1:${integratorListener.port}`;
const integratorConfig = resolveIntegratorConfig(
  {
    port: integratorListener.port,
    baseUrl: integratorUrl,
    hostBaseUrl: 'http://127.0.0.1:1',
    oauthApplicationId: 1,
    secret: randomBytes(32).toString('base64url'),
  },
  {},
);
const integratorDb = await openIntegratorDatabase({ dataDir: join(parent, 'integrator'), schema: 'integrator' });
const integrator = await createIntegrator({ config: { ...integratorConfig, logLevel: 'silent' }, db: integratorDb });
integratorListener.attach(integrator.app);
const { rows: users } = await integratorDb.query<{ id: string }>('SELECT id::text FROM users WHERE username = $1', [
  DEVELOPMENT_DEFAULTS.user.username,
]);
const { pair } = await issueTokenFamily(
  integratorDb,
  { clientId: DEVELOPMENT_DEFAULTS.clientId, userId: users[0]!.id, scope: 'messages' },
  new Date(),
  integratorConfig,
);

const db = await openDatabase({ dataDir: join(parent, 'host') });
await migrate(db);
await seedDemo(db, { password: PASSWORD });
const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
const url = `http://127.0.0.1:${listener.port}`;
const config = resolveHostConfig(
  {
    port: listener.port,
    baseUrl: url,
    dataDir: join(parent, 'host'),
    logLevel: 'silent',
    sessionSecret: randomBytes(32).toString('base64url'),
    encryptionKeys: [{ id: 'house', key: randomBytes(32).toString('base64') }],
    rateLimit: 'off',
  },
  {},
);
const box = createSecretBox(config.encryptionKeys);
await ensureSampleAddon(db, box, { integratorUrl, bundle: 'export default () => {}', env: {} });
const host = await createHost({ config, db });
listener.attach(host.app);

const { rows: admins } = await db.query<{ id: string }>('SELECT id::text FROM people WHERE email = $1', [ADMIN]);
const adminId = admins[0]!.id;
const browser = new TestBrowser(url);
await browser.submit(await browser.request('/login'), { email: ADMIN, password: PASSWORD });
const listing = await browser.request('/addons/installations', { headers: { accept: 'application/json' } });
const { data, csrf_token: csrf } = JSON.parse(listing.body) as { data: { id: string }[]; csrf_token: string };
const installationId = data[0]!.id;
const vault = createTokenVault(db, box);
const record = await vault.ensure(installationId, adminId);
// The handshake's own moves (the state machine refuses shortcuts), as bench P1 sets them up.
await vault.saveServiceTokens(
  record.id,
  { accessToken: 'unused-host-token', refreshToken: undefined, expiresAt: undefined, scope: 'people' },
  ['people'],
);
await vault.setState(record.id, 'integrator_pending');
await vault.saveIntegratorTokens(
  record.id,
  {
    accessToken: pair.accessToken,
    refreshToken: pair.refreshToken,
    expiresAt: new Date(Date.now() + 3600_000),
    scope: 'messages',
  },
  { state: 'ready' },
);
const pat = await createPersonalAccessToken(db, adminId, 'house');

const proxiedCall = async () => {
  const path = `/addons/installations/${installationId}/fetch/integrator`;
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      cookie: browser.jar.header(path),
      'x-csrf-token': csrf,
      origin: url,
      'x-addon-fetch': encodeURIComponent(
        JSON.stringify({
          method: 'GET',
          url: `${integratorUrl}/api/messages`,
          headers: [['accept', 'application/json']],
        }),
      ),
    },
  });
  await response.arrayBuffer();
  const upstream = JSON.parse(decodeURIComponent(response.headers.get('x-addon-upstream') ?? '{}')) as {
    status?: number;
  };
  if (response.status !== 200 || upstream.status !== 200) throw new Error(`proxied call: ${response.status}`);
};
const listRead = async () => {
  const response = await fetch(`${url}/people/v2/lists/1`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${pat.client_id}:${pat.secret}`).toString('base64')}`,
      'user-agent': 'house-visits/1.0',
    },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /people/v2/lists/1: ${response.status}`);
};

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The repository files (not node_modules) with a function that ran during `request`. */
async function visited(request: () => Promise<void>): Promise<string[]> {
  await request();
  await session.post('Profiler.takePreciseCoverage');
  await request();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  return (
    result
      .filter((script) => script.url.startsWith('file://') && script.functions.some((f) => f.ranges[0]!.count > 0))
      .map((script) => relative(ROOT, fileURLToPath(script.url)))
      // This script and its test helper are the driver, not the house.
      .filter(
        (file) => /^(host|addon-sdk|integrator-template)\//.test(file) && !file.split(sep).includes('node_modules'),
      )
      .sort()
  );
}

const report = (title: string, files: string[]) => {
  const packages = new Map<string, string[]>();
  for (const file of files) {
    const top = file.split(sep)[0]!;
    packages.set(top, [...(packages.get(top) ?? []), file]);
  }
  const summary = [...packages].map(([top, list]) => {
    const folders = new Set(list.map((file) => dirname(file)));
    return `${top} ${list.length} in ${folders.size} folder(s)`;
  });
  process.stdout.write(`${title}: ${files.length} files (${summary.join('; ')})\n`);
  if (process.argv.includes('--details')) process.stdout.write(`${files.map((file) => `  ${file}`).join('\n')}\n`);
};

report('proxied integrator call (POST /addons/installations/{id}/fetch/integrator)', await visited(proxiedCall));
report('GET /people/v2/lists/{id}', await visited(listRead));

await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await listener.close();
await integratorListener.close();
await host.close();
await integrator.close();
await db.close();
await integratorDb.close();
await rm(parent, { recursive: true, force: true });
