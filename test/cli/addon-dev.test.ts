/**
 * `addon-kit addon build`, `addon dev` and `addon push` against a host over HTTP: build with the SDK's vite preset
 * (a build error as file, line, column and code frame), push a development version per rebuild that changed something
 * (an unchanged bundle adds no version), keep watching through a build error, an atomic save (write a temporary file,
 * rename it over), new, deleted and re-created files, and serve each version's bundle by its own hash. On a first run
 * without an application id, create the add-on's OAuth application and remember it in `.addon-kit.json`.
 */
import { mkdtemp, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxApp } from '@addon-kit/host/addons';
import { listInstallations } from '#host/addons/registry/installations.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { addonCommand } from '#host/cli/addon-command.ts';
import { addonDevCommand } from '#host/cli/addon-dev-command.ts';
import { createOAuthApplication, findOAuthApplication } from '#host/oauth/applications.ts';
import { personId } from '../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { organizationId, testBox } from '../host/addons/fixtures.ts';

let t: HttpTestHost;
let dir: string;
let env: NodeJS.ProcessEnv;
let pat: NodeJS.ProcessEnv;
let demoOrg: string;

/** A CommandIo that keeps what was written. */
function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err };
}

/** Polls `check` until it returns a value (every 50 ms, up to 30 s). */
async function eventually<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const source = (text: string) =>
  `const root = self as unknown as { postMessage(m: string): void };\nroot.postMessage(${JSON.stringify(text)});\n`;

beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  demoOrg = await organizationId(t.db, 'demo');
  const app = await createOAuthApplication(t.db, testBox(), {
    organizationId: demoOrg,
    name: 'Dev loop add-on',
    redirectUris: ['http://localhost:4100/addon/complete'],
  });
  const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'addon dev');
  dir = await mkdtemp(join(tmpdir(), 'addon-dev-'));
  mkdirSync(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'index.ts'), source('version one'));
  await writeFile(
    join(dir, 'addon.config.json'),
    await readFile(new URL('../../addon.config.json', import.meta.url), 'utf8'),
  );
  pat = { ADDON_KIT_PAT_CLIENT_ID: token.client_id, ADDON_KIT_PAT_SECRET: token.secret };
  env = { ...pat, ADDON_OAUTH_APPLICATION_ID: app.id };
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const paths = () => ['--entry', join(dir, 'src', 'index.ts'), '--out', join(dir, 'dist', 'addon.js')];

describe('addon-kit addon build', () => {
  it('builds one classic script and prints its gzip size against the budget [ok]', async () => {
    const c = captureIo();
    expect(await addonCommand(['build', ...paths()], c.io, env)).toBe(0);
    expect(c.out).toHaveLength(1);
    expect(c.out[0]).toMatch(/^built \S*dist\/addon\.js [\d.]+ kB gzip [\d.]+ kB \/ budget 25\.0 kB ok$/);
    const built = await readFile(join(dir, 'dist', 'addon.js'), 'utf8');
    expect(built).toContain('version one');
    expect(built).not.toMatch(/^\s*(import|export)\s/m);
  });

  it('exits 1 and says so when the bundle is over the budget [--budget-kb]', async () => {
    const c = captureIo();
    expect(await addonCommand(['build', ...paths(), '--budget-kb', '0.01'], c.io, env)).toBe(1);
    expect(c.out[0]).toMatch(/ \/ budget 0\.0 kB OVER$/);
  });

  it('exits 1 with the file, line, column and code frame of a syntax error [broken source]', async () => {
    const broken = join(dir, 'broken.ts');
    await writeFile(broken, 'const ok = 1;\nconst x = (;\nexport { ok };\n');
    const c = captureIo();
    expect(await addonCommand(['build', '--entry', broken, '--out', join(dir, 'dist', 'broken.js')], c.io, env)).toBe(
      1,
    );
    const where = broken.startsWith(process.cwd()) ? broken.slice(process.cwd().length + 1) : broken;
    expect(c.err[0]).toBe('build failed:');
    expect(c.err[1]).toMatch(new RegExp(`^  \\S*${where.split('/').at(-1)}:2:12: \\S`));
    expect(c.err.slice(2)).toEqual([
      '    1 | const ok = 1;',
      '  > 2 | const x = (;',
      '      |            ^',
      '    3 | export { ok };',
    ]);
  });
});

describe('addon-kit addon dev', () => {
  it('pushes a version per change that changed the bundle, through a build error, an atomic save and new, deleted and re-created files', async () => {
    const c = captureIo();
    const stop = new AbortController();
    const args = [...paths(), '--config', join(dir, 'addon.config.json'), '--host', t.baseUrl];
    const running = addonDevCommand(args, c.io, env, stop.signal);
    const rebuilt = (n: number) => {
      const lines = c.out.filter((l) => /: built .* → /.test(l));
      return lines.length >= n ? lines[n - 1] : undefined;
    };
    const hashOf = (line: string) => /sha256 ([0-9a-f]{64})\)/.exec(line)![1]!;
    const versionOf = (line: string) => Number(/version (\d+) /.exec(line)![1]);
    const sandbox = supertest(
      createSandboxApp({ db: t.db, hostBaseUrl: t.baseUrl, sandboxUrl: 'http://127.0.0.1:1', bundleDir: dir }),
    );
    const liveHash = async () =>
      (await listInstallations(t.db, demoOrg)).find(
        (i) =>
          i.environment === 'development' && i.uiExtensions['people.list.send_message']?.title === 'Send a message',
      )?.bundleSha256;
    const entry = join(dir, 'src', 'index.ts');
    try {
      const first = await eventually(() => rebuilt(1), 'the first push');
      expect(first).toMatch(
        /^start: built \S*dist\/addon\.js [\d.]+ kB gzip [\d.]+ kB \/ budget 25\.0 kB ok → pushed add-on \d+ to development: version \d+ /,
      );
      await eventually(
        () => (c.err.some((l) => l.startsWith('addon-kit addon dev: watching')) ? true : undefined),
        'the watch',
      );

      await writeFile(entry, source('version two'));
      const second = await eventually(() => rebuilt(2), 'the push after an edit');
      expect(second).toMatch(/^changed index\.ts: built .* → pushed add-on \d+ to development: version \d+ /);
      expect(versionOf(second)).toBe(versionOf(first) + 1);
      expect(await liveHash()).toBe(hashOf(second));
      // The next mount loads the new hash; a mounted add-on keeps loading the script of the hash it was given.
      expect((await sandbox.get(`/addons/${hashOf(second)}.js`)).text).toContain('version two');
      expect((await sandbox.get(`/addons/${hashOf(first)}.js`)).text).toContain('version one');

      await writeFile(entry, 'const broken = (;\n');
      const failed = await eventually(
        () => c.err.find((l) => l.includes('build failed, still watching')),
        'the build error',
      );
      expect(failed).toBe('changed index.ts: build failed, still watching:');
      const at = c.err.indexOf(failed);
      expect(c.err[at + 1]).toMatch(/^ {2}\S*index\.ts:1:17: \S/);
      expect(c.err.slice(at + 2, at + 4)).toEqual(['  > 1 | const broken = (;', '      |                 ^']);

      // An editor's atomic save: a temporary file renamed over the entry.
      await writeFile(`${entry}.tmp-save`, source('version three'));
      await rename(`${entry}.tmp-save`, entry);
      const third = await eventually(() => rebuilt(3), 'the push after an atomic save');
      expect(third).toMatch(/^changed .*index\.ts.*: built .* → pushed add-on \d+ to development: version \d+ /);
      expect(versionOf(third)).toBe(versionOf(second) + 1);
      expect((await sandbox.get(`/addons/${hashOf(third)}.js`)).text).toContain('version three');

      // Still watching after it: a plain edit is seen.
      await writeFile(entry, source('version four'));
      const fourth = await eventually(() => rebuilt(4), 'the push after the save that follows');
      expect(versionOf(fourth)).toBe(versionOf(third) + 1);

      // A new file the entry does not import: rebuilt, the same bundle, no new version.
      const extra = join(dir, 'src', 'extra.ts');
      await writeFile(extra, 'export const extra = "extra";\n');
      const fifth = await eventually(() => rebuilt(5), 'the rebuild after a new file');
      expect(fifth).toMatch(
        /^changed extra\.ts: built .* → add-on \d+ in development is unchanged: version \d+ \(bundle sha256 [0-9a-f]{64}\) is live$/,
      );
      expect(versionOf(fifth)).toBe(versionOf(fourth));
      await unlink(extra);
      expect(await eventually(() => rebuilt(6), 'the rebuild after a deletion')).toMatch(/^changed extra\.ts: /);
      await writeFile(extra, 'export const extra = "again";\n');
      expect(await eventually(() => rebuilt(7), 'the rebuild after a re-creation')).toMatch(/^changed extra\.ts: /);
      await writeFile(
        entry,
        `import { extra } from './extra.ts';\n${source('version five')}root.postMessage(extra);\n`,
      );
      const eighth = await eventually(() => rebuilt(8), 'the push importing the re-created file');
      expect(versionOf(eighth)).toBe(versionOf(fourth) + 1);
      expect((await sandbox.get(`/addons/${hashOf(eighth)}.js`)).text).toContain('again');
      expect(c.out.filter((l) => l.includes('→ pushed'))).toHaveLength(5);
    } finally {
      stop.abort();
      expect(await running).toBe(0);
    }
  }, 120_000);

  it('creates the add-on OAuth application on a first run, remembers it, and moves the integrator with --integrator', async () => {
    const project = await mkdtemp(join(tmpdir(), 'addon-first-run-'));
    try {
      mkdirSync(join(project, 'src'));
      await writeFile(join(project, 'src', 'index.ts'), source('first run'));
      const scaffold = new URL('../../host/cli/create/addon-template/addon.config.json', import.meta.url);
      await writeFile(join(project, 'addon.config.json'), await readFile(scaffold, 'utf8'));
      const c = captureIo();
      const stop = new AbortController();
      const args = [
        '--entry',
        join(project, 'src', 'index.ts'),
        '--out',
        join(project, 'dist', 'addon.js'),
        '--config',
        join(project, 'addon.config.json'),
        '--host',
        t.baseUrl,
      ];
      const running = addonDevCommand(args, c.io, pat, stop.signal);
      const pushed = await eventually(() => c.out.find((l) => l.startsWith('start: built')), 'the first push');
      stop.abort();
      expect(await running).toBe(0);
      const created = c.err.find((l) => l.startsWith('addon-kit: created the OAuth application'))!;
      const id = /application ID (\d+),/.exec(created)![1]!;
      expect(created).toMatch(
        new RegExp(
          `^addon-kit: created the OAuth application "My add-on" on ${t.baseUrl}: application ID ${id}, client ID \\S+ \\(remembered in \\.addon-kit\\.json\\)$`,
        ),
      );
      expect(pushed).toMatch(new RegExp(` → pushed add-on ${id} to development: version 1 `));
      expect(JSON.parse(await readFile(join(project, '.addon-kit.json'), 'utf8'))).toEqual({
        hosts: { [t.baseUrl]: { oauth_application_id: Number(id) } },
      });
      expect((await findOAuthApplication(t.db, id))!.redirect_uris).toEqual([
        `http://localhost:4100/addon/complete/${id}`,
      ]);

      // push on its own: the remembered application, nothing changed, nothing added.
      const push = captureIo();
      const pushArgs = ['push', '--env', 'development', '--config', join(project, 'addon.config.json')];
      const bundle = ['--bundle', join(project, 'dist', 'addon.js'), '--host', t.baseUrl];
      expect(await addonCommand([...pushArgs, ...bundle], push.io, pat)).toBe(0);
      expect(push.out).toEqual([
        expect.stringMatching(new RegExp(`^add-on ${id} in development is unchanged: version 1 `)),
      ]);

      // Another integrator, no edit: its completion URL becomes a redirect URI, the pushed URLs move onto it.
      const moved = captureIo();
      expect(await addonCommand([...pushArgs, ...bundle, '--integrator', 'http://localhost:4200'], moved.io, pat)).toBe(
        0,
      );
      expect(moved.err).toEqual([
        `addon-kit: http://localhost:4200/addon/complete/${id} is now a redirect URI of application ${id}`,
      ]);
      expect(moved.out).toEqual([expect.stringMatching(new RegExp(`^pushed add-on ${id} to development: version 2 `))]);
      const live = (await listInstallations(t.db, demoOrg)).find((i) => i.oauthApplicationId === id)!;
      expect(live.integratorOAuth).toMatchObject({
        authorize_url: 'http://localhost:4200/oauth/authorize',
        token_url: 'http://localhost:4200/oauth/token',
        redirect_url: `http://localhost:4200/addon/complete/${id}`,
      });
      expect(live.integratorApi.base_url).toBe('http://localhost:4200');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 120_000);
});
