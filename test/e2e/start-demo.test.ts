/**
 * `addon-kit start` as a person runs it: a spawned CLI on a new data directory prints the demo URLs, the demo
 * List page answers after login, its add-on script comes cookie-free from the sandbox origin, and a restart
 * reuses the sample add-on it registered.
 */
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startCli, stopCli } from '../support/cli.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { TestBrowser } from '../support/oauth-browser.ts';

let dataDir: string;
let databaseUrl: string | undefined;
let ports: { host: number; sandbox: number; integrator: number };

/** A port free right now (the restart needs the same ports twice, so port 0 will not do). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-demo-'));
  databaseUrl = await createEmptyPostgresDatabase();
  ports = { host: await freePort(), sandbox: await freePort(), integrator: await freePort() };
});

const args = () => [
  'start',
  ...['--port', String(ports.host), '--sandbox-port', String(ports.sandbox), '--integrator-port', String(ports.integrator)],
  ...['--data-dir', dataDir, '--demo-password', 'demo-start-pw'],
  ...(databaseUrl ? ['--database-url', databaseUrl] : []),
];
const READY = /^admin@other\.test \/ .*$/m;

describe('addon-kit start (demo)', () => {
  it('prints the demo URLs and serves the demo List page after login, with the add-on script on the sandbox origin [first start]', async () => {
    const run = await startCli(args(), READY, { INTEGRATOR_DEMO_PASSWORD: '', INTEGRATOR_CLIENT_ID: '', INTEGRATOR_CLIENT_SECRET: '' });
    try {
      const host = `http://localhost:${ports.host}`;
      const listUrl = new RegExp(`^  demo List page:    (${host}/demo/lists/(\\d+)) `, 'm').exec(run.stdout());
      expect(listUrl).not.toBeNull();
      expect(run.stdout()).toContain(
        [
          `  demo Lists:        ${host}/demo/lists`,
          `  demo List page:    ${listUrl![1]}   (the sample add-on "Send a message": Authorize, then send)`,
          `  add-on sandbox:    http://localhost:${ports.sandbox}`,
          `  integrator:        http://localhost:${ports.integrator}`,
          '  integrator login:  demo / demo-password',
          'demo logins (email / password):',
          'admin@demo.test / demo-start-pw',
        ].join('\n'),
      );
      expect(run.stderr()).toMatch(/built host\.js, sandbox-bootstrap\.js and addons\/send-message\.js in \d+ ms/);
      expect(run.stderr()).toContain('created the OAuth application "Send Message (sample add-on)"');
      expect(run.stderr()).toContain("registered the sample add-on's development version 1");

      const browser = new TestBrowser(host);
      const redirected = await browser.request(listUrl![1]!);
      expect(redirected.status).toBe(303);
      expect(redirected.location).toBe(`${host}/login?return_to=${encodeURIComponent(`/demo/lists/${listUrl![2]}`)}`);
      const login = await browser.request(redirected.location!);
      const done = await browser.submit(login, { email: 'admin@demo.test', password: 'demo-start-pw' });
      expect(done.status).toBe(303);
      expect(done.location).toBe(listUrl![1]);
      const page = await browser.request(listUrl![1]!);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain(`frame-src http://localhost:${ports.sandbox}`);
      expect(page.body).toContain("import { mountAddon } from '/assets/addon-sdk/host.js';");
      const mounts = JSON.parse(/<script type="application\/json" id="addon-kit-mounts">(.*?)<\/script>/.exec(page.body)![1]!) as {
        csrfToken: string;
        mounts: { options: { extension: string; environment: string; sandboxUrl: string; addonUrl: string; props: Record<string, string> } }[];
      };
      expect(mounts.mounts.map((m) => ({ ...m.options, installationId: undefined }))).toEqual([
        {
          installationId: undefined,
          extension: 'people.list.send_message',
          props: { listId: listUrl![2], list_id: listUrl![2] },
          environment: 'development',
          sandboxUrl: `http://localhost:${ports.sandbox}/frame.html`,
          addonUrl: expect.stringMatching(new RegExp(`^http://localhost:${ports.sandbox}/addons/[0-9a-f]{64}\\.js$`)),
        },
      ]);

      const embedder = await fetch(`${host}/assets/addon-sdk/host.js`);
      expect([embedder.status, embedder.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
      // No cookie: the sandbox worker loads it exactly like this.
      const script = await fetch(mounts.mounts[0]!.options.addonUrl);
      expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
      expect(await script.text()).toContain('/api/messages');
      const frame = await fetch(mounts.mounts[0]!.options.sandboxUrl);
      expect(frame.status).toBe(200);
      expect(frame.headers.get('content-security-policy')).toContain(`frame-ancestors ${host}`);
      const integratorLogin = await fetch(`http://localhost:${ports.integrator}/login`);
      expect(integratorLogin.status).toBe(200);
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  });

  it('finds the sample add-on again and registers nothing new [restart]', async () => {
    const run = await startCli(args(), READY, { INTEGRATOR_DEMO_PASSWORD: '', INTEGRATOR_CLIENT_ID: '', INTEGRATOR_CLIENT_SECRET: '' });
    try {
      expect(run.stdout()).toMatch(new RegExp(`^  demo List page:    http://localhost:${ports.host}/demo/lists/\\d+ `, 'm'));
      expect(run.stderr()).not.toContain('created the OAuth application');
      expect(run.stderr()).not.toContain('registered the sample add-on');
      expect(run.stderr()).not.toContain('ran ');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  });
});
