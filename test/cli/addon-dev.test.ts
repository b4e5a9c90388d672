/**
 * `addon-kit addon build` and `addon-kit addon dev` against a host over HTTP: build with the SDK's vite preset,
 * push a development version per rebuild, keep watching through a build error, and serve each version's bundle
 * by its own hash (the next mount runs the new code; a running add-on keeps the script it loaded).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { personId } from '../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { organizationId, testBox } from '../host/addons/fixtures.ts';

let t: HttpTestHost;
let dir: string;
let env: NodeJS.ProcessEnv;
let demoOrg: string;

/** A CommandIo that keeps what was written. */
function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err };
}

/** Polls `check` until it returns a value (every 50 ms, up to 20 s). */
async function eventually<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
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
  env = {
    ADDON_KIT_PAT_CLIENT_ID: token.client_id,
    ADDON_KIT_PAT_SECRET: token.secret,
    ADDON_OAUTH_APPLICATION_ID: app.id,
  };
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

  it('exits 1 with the build error for a syntax error [broken source]', async () => {
    const broken = join(dir, 'broken.ts');
    await writeFile(broken, 'const x = (;\n');
    const c = captureIo();
    expect(await addonCommand(['build', '--entry', broken, '--out', join(dir, 'dist', 'broken.js')], c.io, env)).toBe(
      1,
    );
    expect(c.err[0]).toMatch(/^build failed: /);
  });
});

describe('addon-kit addon dev', () => {
  it('pushes a new development version per change, keeps watching through a build error, and serves each bundle by its hash', async () => {
    const c = captureIo();
    const stop = new AbortController();
    const args = [...paths(), '--config', join(dir, 'addon.config.json'), '--host', t.baseUrl];
    const running = addonDevCommand(args, c.io, env, stop.signal);
    const pushed = (n: number) => {
      const lines = c.out.filter((l) =>
        / → pushed add-on \d+ to development: version \d+ \(bundle sha256 [0-9a-f]{64}\)$/.test(l),
      );
      return lines.length >= n ? lines[n - 1] : undefined;
    };
    const hashOf = (line: string) => /sha256 ([0-9a-f]{64})\)$/.exec(line)![1]!;
    const versionOf = (line: string) => Number(/version (\d+) /.exec(line)![1]);
    const sandbox = supertest(
      createSandboxApp({ db: t.db, hostBaseUrl: t.baseUrl, sandboxUrl: 'http://127.0.0.1:1', bundleDir: dir }),
    );
    const liveHash = async () =>
      (await listInstallations(t.db, demoOrg)).find(
        (i) =>
          i.environment === 'development' && i.uiExtensions['people.list.send_message']?.title === 'Send a message',
      )?.bundleSha256;
    try {
      const first = await eventually(() => pushed(1), 'the first push');
      expect(first).toMatch(
        /^start: built \S*dist\/addon\.js [\d.]+ kB gzip [\d.]+ kB \/ budget 25\.0 kB ok → pushed add-on \d+ to development: version \d+ /,
      );
      await eventually(
        () => (c.err.some((l) => l.startsWith('addon-kit addon dev: watching')) ? true : undefined),
        'the watch',
      );

      await writeFile(join(dir, 'src', 'index.ts'), source('version two'));
      const second = await eventually(() => pushed(2), 'the push after an edit');
      expect(second).toMatch(/^changed index\.ts: built /);
      expect(versionOf(second)).toBe(versionOf(first) + 1);
      expect(await liveHash()).toBe(hashOf(second));
      // The next mount loads the new hash; a mounted add-on keeps loading the script of the hash it was given.
      expect((await sandbox.get(`/addons/${hashOf(second)}.js`)).text).toContain('version two');
      expect((await sandbox.get(`/addons/${hashOf(first)}.js`)).text).toContain('version one');

      await writeFile(join(dir, 'src', 'index.ts'), 'const broken = (;\n');
      const failed = await eventually(
        () => c.err.find((l) => l.includes('build failed, still watching')),
        'the build error',
      );
      expect(failed).toMatch(/^changed index\.ts: build failed, still watching: /);
      expect(pushed(3)).toBeUndefined();

      await writeFile(join(dir, 'src', 'index.ts'), source('version three'));
      const third = await eventually(() => pushed(3), 'the push after the fix');
      expect(versionOf(third)).toBe(versionOf(second) + 1);
      expect((await sandbox.get(`/addons/${hashOf(third)}.js`)).text).toContain('version three');
      expect(c.out.filter((l) => l.includes('→ pushed'))).toHaveLength(3);
    } finally {
      stop.abort();
      expect(await running).toBe(0);
    }
  });
});
