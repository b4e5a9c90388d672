/**
 * The packages as their users meet them, outside this repository: pack the workspaces (and check what each
 * tarball ships), scaffold an integrator and an add-on into a temporary folder with the README's commands,
 * `npm install` there from the packed packages, run each scaffold's own `npm test`, start the scaffolded
 * integrator and a host with the installed `addon-kit start`, push the add-on, complete the handshake in Chromium
 * with one call through each fetch, then edit the add-on under `npm run dev` and see the next mount run the new code.
 * Slow (npm installs): it runs on the PGlite run only.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivePopup, launchBrowser } from '../support/browser.ts';
import { CLI } from '../support/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
/** Slow npm work on a shared two-core machine. */
const LONG = 1_200_000;
const skip = Boolean(process.env.DATABASE_URL);
if (skip)
  console.warn(
    'outside-in test skipped on the PostgreSQL run: it does not touch the database choice and takes minutes (npm installs)',
  );

/** The shell lines of the README section under `heading`. */
function shellLines(heading: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith(heading));
  const block = section && /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`no shell block in README section ${heading}`);
  return block[1]!
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/\s+#.*$/, '').trim());
}

/** npm quietly, from its cache where it can (the registry only for what the cache lacks). */
const NPM_ENV = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion in `cwd`; prints a progress line. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, DATABASE_URL: '', ...NPM_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      console.log(
        `outside-in: ${[command === process.execPath ? 'node' : command, ...args].join(' ').replace(CLI, 'addon-kit')} (in ${cwd}) → ${code} in ${Date.now() - started} ms`,
      );
      // Without colours: the output is read by the assertions.
      done({ code, stdout: stripVTControlCharacters(stdout), stderr });
    });
  });
}

/** Runs a command that must succeed; its output is in the error otherwise. */
async function ok(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A long-running command, resolved once its stdout matches `ready`. */
function serve(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcessWithoutNullStreams; out: () => string; err: () => string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, DATABASE_URL: '', ...NPM_ENV, ...env },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      if (ready.test(stdout)) done({ child, out: () => stdout, err: () => stderr });
    });
    child.on('close', (code) =>
      fail(new Error(`${command} ${args.join(' ')} exited ${code} before ready:\n${stdout}\n${stderr}`)),
    );
  });
}

/** Stops a served command and everything it started (npm runs the script in a child of its own). */
async function stop(child: ChildProcessWithoutNullStreams | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  child.removeAllListeners('close');
  const closed = new Promise((r) => child.once('close', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  await closed;
}

/** A port free right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Polls until `check` returns a value. */
async function eventually<T>(check: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  for (let waited = 0; waited < ms; waited += 100) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let work: string;
let packed: string;
let packs: { name: string; filename: string; files: { path: string }[] }[];
const served: ChildProcessWithoutNullStreams[] = [];
let browser: Browser | undefined;

beforeAll(async () => {
  if (skip) return;
  work = await mkdtemp(join(tmpdir(), 'addon-kit-outside-'));
  packed = join(work, 'packed');
  await mkdir(packed);
  // npm pack runs each package's prepack: a fresh build of dist/.
  const result = await ok('npm', ['pack', '--workspaces', '--pack-destination', packed, '--json', '--silent'], ROOT);
  packs = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as typeof packs;
}, LONG);

afterAll(async () => {
  await browser?.close();
  for (const child of served.reverse()) await stop(child);
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

describe.skipIf(skip)('npm pack (each workspace)', () => {
  const pack = (name: string) => packs.find((p) => p.name === name)!;
  const manifest = async (dir: string) =>
    JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };

  it.each([
    ['@addon-kit/sdk', 'addon-sdk'],
    ['@addon-kit/integrator-template', 'integrator-template'],
    ['@addon-kit/host', 'host'],
  ])('%s ships built JavaScript and types for every export', async (name, dir) => {
    const files = new Set(pack(name).files.map((f) => f.path));
    const missing: string[] = [];
    for (const [subpath, target] of Object.entries((await manifest(dir)).exports)) {
      if (subpath.includes('*') || typeof target === 'string') continue;
      for (const condition of ['types', 'default'] as const) {
        if (!files.has(target[condition]!.replace(/^\.\//, '')))
          missing.push(`${subpath} ${condition} ${target[condition]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships no tests and no TypeScript sources in the SDK and the host (the add-on template is copied as it is)', () => {
    const sources = (name: string) =>
      pack(name)
        .files.map((f) => f.path)
        .filter((p) => /\.tsx?$/.test(p) && !p.endsWith('.d.ts'));
    expect(sources('@addon-kit/sdk')).toEqual([]);
    expect(sources('@addon-kit/host').filter((p) => !p.startsWith('cli/create/addon-template/'))).toEqual([]);
    expect(pack('@addon-kit/host').files.map((f) => f.path)).toContain('cli/create/addon-template/test/addon.test.ts');
    for (const name of ['@addon-kit/sdk', '@addon-kit/host'])
      expect(
        pack(name).files.filter((f) => /(^|\/)test\/|\.test\./.test(f.path) && !f.path.startsWith('cli/create/')),
      ).toEqual([]);
  });

  it('ships the stylesheets and favicons the built pages read beside them in dist [assets]', () => {
    const files = (name: string) => pack(name).files.map((f) => f.path);
    expect(files('@addon-kit/sdk')).toContain('dist/host/components/components.css');
    expect(files('@addon-kit/host')).toEqual(
      expect.arrayContaining(['dist/pages/assets/host.css', 'dist/pages/assets/favicon.svg']),
    );
    expect(files('@addon-kit/integrator-template')).toEqual(
      expect.arrayContaining(['dist/pages/assets/integrator.css', 'dist/pages/assets/favicon.svg']),
    );
  });

  it('ships the template integrator with its sources, migrations and tests, to be copied by create integrator', () => {
    const files = pack('@addon-kit/integrator-template').files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'server.ts',
        'main.ts',
        'migrations/001_integrator.sql',
        'test/token.test.ts',
        'vitest.config.ts',
        'tsconfig.json',
        'dist/index.js',
        'dist/index.d.ts',
      ]),
    );
    expect(files.filter((p) => p.startsWith('dist/test/') || p === 'tsconfig.build.json')).toEqual([]);
  });

  it("ships the host's migrations and the sample add-on's config, identical to the repository's addon.config.json", async () => {
    const files = pack('@addon-kit/host').files.map((f) => f.path);
    const migrations = (await readdir(join(ROOT, 'host/db/migrations'))).map((f) => `db/migrations/${f}`);
    expect(files).toEqual(
      expect.arrayContaining([...migrations, 'dist/demo/addon.config.json', 'bin/addon-kit.js', 'dist/cli/main.js']),
    );
    expect(await readFile(join(ROOT, 'host/dist/demo/addon.config.json'), 'utf8')).toBe(
      await readFile(join(ROOT, 'addon.config.json'), 'utf8'),
    );
  });
});

describe.skipIf(skip)('the README\'s "Build your own" commands, outside the repository', () => {
  it(
    'scaffolds, installs, tests and runs an integrator and an add-on, then develops the add-on against a started host',
    async () => {
      const integratorLines = shellLines('Build your own integrator');
      const addonLines = shellLines('Build your own add-on');
      expect(integratorLines).toEqual([
        'npx addon-kit create integrator ../my-integrator',
        'cd ../my-integrator',
        'npm install',
        'npm test',
        'INTEGRATOR_OAUTH_APPLICATION_ID=1 npm start',
      ]);
      expect(addonLines).toEqual([
        'npx addon-kit create addon ../my-addon',
        'cd ../my-addon',
        'npm install',
        'npm test',
        'npm run build',
        'npm run push',
        'npm run dev',
      ]);
      // "From this checkout": a stand-in folder beside which the projects are created, outside the repository.
      const checkout = join(work, 'checkout');
      await mkdir(checkout);
      const cliArgs = (line: string) => line.replace(/^npx addon-kit /, '').split(/\s+/);
      await ok(process.execPath, [CLI, ...cliArgs(integratorLines[0]!)], checkout);
      await ok(process.execPath, [CLI, ...cliArgs(addonLines[0]!), '--packages', packed], checkout);
      const integratorDir = resolve(checkout, integratorLines[1]!.replace(/^cd /, ''));
      const addonDir = resolve(checkout, addonLines[1]!.replace(/^cd /, ''));
      expect(integratorDir.startsWith(ROOT)).toBe(false);
      expect(JSON.parse(await readFile(join(addonDir, 'package.json'), 'utf8')).devDependencies['@addon-kit/sdk']).toBe(
        'file:vendor/addon-kit-sdk-0.1.0.tgz',
      );

      const npm = (line: string) => line.split(' ').slice(1);
      await Promise.all([ok('npm', npm(integratorLines[2]!), integratorDir), ok('npm', npm(addonLines[2]!), addonDir)]);
      const [integratorTests, addonTests] = await Promise.all([
        run('npm', npm(integratorLines[3]!), integratorDir),
        run('npm', npm(addonLines[3]!), addonDir),
      ]);
      expect(integratorTests.code, integratorTests.stdout + integratorTests.stderr).toBe(0);
      expect(integratorTests.stdout).toMatch(/Test Files\s+\d+ passed/);

      // The installed CLI (built dist, no TypeScript) prepares the host's data while nothing else opens it.
      const addonKit = (args: string[]) =>
        ok(process.execPath, [join(addonDir, 'node_modules/@addon-kit/host/bin/addon-kit.js'), ...args], addonDir);
      const dataDir = join(work, 'host-data');
      const ports = {
        host: await freePort(),
        sandbox: await freePort(),
        demo: await freePort(),
        integrator: await freePort(),
      };
      const hostUrl = `http://localhost:${ports.host}`;
      const integratorUrl = `http://localhost:${ports.integrator}`;
      await addonKit(['seed', '--people', '30', '--demo-password', 'outside-in-pw', '--data-dir', dataDir]);
      const app = JSON.parse(
        (
          await addonKit([
            'oauth-app',
            'create',
            '--name',
            'My add-on',
            '--redirect-uri',
            `${integratorUrl}/addon/complete`,
            '--scopes',
            'people',
            '--json',
            '--data-dir',
            dataDir,
          ])
        ).stdout,
      ) as { id: number };
      const pat = JSON.parse(
        (
          await addonKit([
            'pat',
            'create',
            '--email',
            'admin@demo.test',
            '--name',
            'outside-in',
            '--json',
            '--data-dir',
            dataDir,
          ])
        ).stdout,
      ) as { client_id: string; secret: string };

      const [assignment, startLine] = integratorLines[4]!.split(/ (?=npm )/) as [string, string];
      expect(assignment).toBe('INTEGRATOR_OAUTH_APPLICATION_ID=1');
      const integrator = await serve(
        'npm',
        npm(startLine),
        integratorDir,
        {
          INTEGRATOR_OAUTH_APPLICATION_ID: String(app.id),
          INTEGRATOR_PORT: String(ports.integrator),
          INTEGRATOR_BASE_URL: integratorUrl,
          INTEGRATOR_HOST_BASE_URL: hostUrl,
          INTEGRATOR_DATA_DIR: join(work, 'integrator-data'),
        },
        /template integrator listening/,
      );
      served.push(integrator.child);
      const host = await serve(
        process.execPath,
        [
          join(addonDir, 'node_modules/@addon-kit/host/bin/addon-kit.js'),
          'start',
          '--port',
          String(ports.host),
          '--sandbox-port',
          String(ports.sandbox),
          '--integrator-port',
          String(ports.demo),
          '--data-dir',
          dataDir,
        ],
        addonDir,
        { INTEGRATOR_DEMO_PASSWORD: '', INTEGRATOR_CLIENT_ID: '', INTEGRATOR_CLIENT_SECRET: '' },
        /^admin@other\.test \/ .*$/m,
      );
      served.push(host.child);
      const listUrl = /^ {2}demo List page: {4}(\S+)/m.exec(host.out())![1]!;
      // The installed host runs the demo too: the sample add-on (compiled in the SDK package) built and registered.
      expect(host.err()).toMatch(/built host\.js, sandbox-bootstrap\.js, addons\/send-message\.js in \d+ ms/);
      expect(host.err()).toContain("registered the sample add-on's development version 1");

      // The add-on's development environment points at the scaffolded integrator.
      const configFile = join(addonDir, 'addon.config.json');
      await writeFile(
        configFile,
        (await readFile(configFile, 'utf8')).replaceAll('http://localhost:4100', integratorUrl),
      );
      const addonEnv = {
        ADDON_OAUTH_APPLICATION_ID: String(app.id),
        ADDON_KIT_PAT_CLIENT_ID: pat.client_id,
        ADDON_KIT_PAT_SECRET: pat.secret,
        ADDON_KIT_BASE_URL: hostUrl,
      };
      const built = await ok('npm', npm(addonLines[4]!), addonDir);
      expect(built.stdout).toMatch(/built dist\/addon\.js [\d.]+ kB gzip [\d.]+ kB \/ budget [\d.]+ kB ok/);
      const pushed = await ok('npm', npm(addonLines[5]!), addonDir, addonEnv);
      expect(pushed.stdout).toMatch(
        new RegExp(`pushed add-on ${app.id} to development: version 1 \\(bundle sha256 [0-9a-f]{64}\\)`),
      );

      browser = await launchBrowser();
      const page: Page = await browser.newPage();
      await page.goto(listUrl);
      await page.fill('input[name=email]', 'admin@demo.test');
      await page.fill('input[name=password]', 'outside-in-pw');
      await Promise.all([page.waitForURL(listUrl), page.click('button[type=submit]')]);
      const mine = () => page.locator('section', { has: page.getByRole('heading', { name: /^My add-on/ }) });
      const mounted = (await page.locator('section.ak-addon .ak-addon-header').allTextContents()).sort();
      expect(mounted).toEqual(['My add-ondevelopment', 'Send a messagedevelopment']);
      const popupOpened = page.waitForEvent('popup');
      await mine().getByRole('button', { name: 'Authorize' }).click();
      const met = await drivePopup(await popupOpened, {
        origins: { [hostUrl]: 'host', [integratorUrl]: 'integrator' },
        integrator: { username: 'demo', password: 'demo-password' },
      });
      expect(met.filter((p) => p.startsWith('integrator/'))).toEqual([
        'integrator/login',
        'integrator/oauth/authorize',
      ]);
      // One call through each fetch: the host's /current/v2/me and the integrator's GET /api/messages.
      await mine().getByText('Hello, Alex').waitFor({ timeout: 30_000 });
      await mine().getByText('You have sent 0 message(s).').waitFor();
      await mine().getByRole('button', { name: 'Send message' }).click();
      await mine()
        .getByText(/^Message \d+ sent\.$/)
        .waitFor();

      // npm run dev: an edit becomes a new development version, and the next mount runs it.
      const dev = await serve(
        'npm',
        npm(addonLines[6]!),
        addonDir,
        addonEnv,
        / → pushed add-on \d+ to development: version 2 /,
      );
      served.push(dev.child);
      await eventually(() => (dev.err().includes('watching') ? true : undefined), 'the watch');
      const entry = join(addonDir, 'src/index.tsx');
      await writeFile(
        entry,
        (await readFile(entry, 'utf8')).replace('`Hello, ${me.firstName}`', '`Welcome back, ${me.firstName}`'),
      );
      await eventually(
        () =>
          /^changed index\.tsx: built .* → pushed add-on \d+ to development: version 3 /m.test(dev.out())
            ? true
            : undefined,
        'the push after the edit',
      );
      expect(await mine().getByText('Hello, Alex').count()).toBe(1);
      await page.reload();
      await mine().getByText('Welcome back, Alex').waitFor({ timeout: 30_000 });
      expect(await mine().getByText('Hello, Alex').count()).toBe(0);

      // The add-on's own test (the SDK's testing kit in Chromium), run above beside the integrator's.
      expect(addonTests.code, addonTests.stdout + addonTests.stderr).toBe(0);
      expect(addonTests.stdout).toMatch(/Tests\s+2 passed/);
    },
    LONG,
  );
});
