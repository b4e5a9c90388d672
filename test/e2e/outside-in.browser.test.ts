/**
 * The packages as their users get them: pack the workspaces and check what each tarball ships. (The README's
 * "Build your own" commands, run as written from a fresh copy of the repository through the add-on authorized in
 * Chromium, are test/e2e/first-hour.browser.test.ts.) Slow (npm pack builds each package): PGlite run only.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Slow npm work on a shared two-core machine. */
const LONG = 1_200_000;
const skip = Boolean(process.env.DATABASE_URL);
if (skip)
  console.warn(
    'outside-in test skipped on the PostgreSQL run: it does not touch the database choice and takes minutes (npm installs)',
  );

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

let work: string;
let packed: string;
let packs: { name: string; filename: string; files: { path: string }[] }[];

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

  it('ships the stylesheets and favicons the built pages read beside them in dist, and the guides [assets]', async () => {
    const files = (name: string) => pack(name).files.map((f) => f.path);
    expect(files('@addon-kit/sdk')).toContain('dist/host/components/components.css');
    expect(files('@addon-kit/host')).toEqual(
      expect.arrayContaining(['dist/pages/assets/host.css', 'dist/pages/assets/favicon.svg']),
    );
    expect(files('@addon-kit/integrator-template')).toEqual(
      expect.arrayContaining(['dist/pages/assets/integrator.css', 'dist/pages/assets/favicon.svg']),
    ); // The guides' one source, copied as it is: an installed host serves /docs/guides from it.
    expect(files('@addon-kit/host')).toEqual(
      expect.arrayContaining(['dist/guides/README.md', 'dist/guides/docs/oauth.md']),
    );
    expect(await readFile(join(ROOT, 'host/dist/guides/README.md'), 'utf8')).toBe(
      await readFile(join(ROOT, 'README.md'), 'utf8'),
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
