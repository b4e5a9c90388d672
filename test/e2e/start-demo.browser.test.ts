/**
 * `addon-kit start` as a person runs it: a spawned CLI on a new data directory prints the demo URLs, the demo
 * List page answers after login, its add-on script comes cookie-free from the sandbox origin, the printed
 * walk-through works in Chromium on the printed `localhost` URLs, and a restart reuses the sample add-on.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { startCli, stopCli } from '../support/cli.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { freePort } from '../support/ports.ts';
import { TestBrowser } from '../support/oauth-browser.ts';

/** `<tmp>/.addon-kit`: a dot-folder, like the default `./.addon-kit`. */
let dataDir: string;
let databaseUrl: string | undefined;
let ports: { host: number; sandbox: number; integrator: number };
/** The first start, kept running for the browser walk-through. */
let first: { child: ChildProcessWithoutNullStreams; stdout: () => string } | undefined;
let listPage: string;

beforeAll(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), 'addon-kit-demo-')), '.addon-kit');
  databaseUrl = await createEmptyPostgresDatabase();
  // The restart needs the same ports twice, so port 0 will not do.
  ports = { host: await freePort(), sandbox: await freePort(), integrator: await freePort() };
});

const args = () => [
  'start',
  ...[
    '--port',
    String(ports.host),
    '--sandbox-port',
    String(ports.sandbox),
    '--integrator-port',
    String(ports.integrator),
  ],
  ...['--data-dir', dataDir, '--demo-password', 'demo-start-pw'],
  ...(databaseUrl ? ['--database-url', databaseUrl] : []),
];
const READY = /^admin@other\.test \/ .*$/m;
const ENV = { INTEGRATOR_DEMO_PASSWORD: '', INTEGRATOR_CLIENT_ID: '', INTEGRATOR_CLIENT_SECRET: '' };

afterAll(async () => {
  if (first) await stopCli(first.child);
});

describe('addon-kit start (demo)', () => {
  it('prints the demo URLs and serves the demo List page after login, with the add-on script on the sandbox origin [first start]', async () => {
    const run = await startCli(args(), READY, ENV);
    first = run;
    {
      const host = `http://localhost:${ports.host}`;
      const listUrl = new RegExp(`^  demo List page:    (${host}/demo/lists/(\\d+)) `, 'm').exec(run.stdout());
      expect(listUrl).not.toBeNull();
      expect(run.stdout()).toContain(
        [
          `  demo Lists:        ${host}/demo/lists`,
          `  demo List page:    ${listUrl![1]}   (the sample add-on "Send a message": Authorize, then send)`,
          `  add-on sandbox:    http://127.0.0.1:${ports.sandbox}`,
          `  integrator:        http://localhost:${ports.integrator}`,
          '  integrator login:  demo / demo-password',
          'demo logins (email / password):',
          'admin@demo.test / demo-start-pw',
        ].join('\n'),
      );
      expect(run.stderr()).toMatch(/built host\.js, sandbox-bootstrap\.js, addons\/send-message\.js in \d+ ms/);
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
      expect(page.headers.get('content-security-policy')).toContain(`frame-src http://127.0.0.1:${ports.sandbox}`);
      expect(page.body).toContain("import('/assets/addon-sdk/host.js')");
      const mounts = JSON.parse(
        /<script type="application\/json" id="addon-kit-mounts">(.*?)<\/script>/.exec(page.body)![1]!,
      ) as {
        csrfToken: string;
        mounts: {
          options: {
            extension: string;
            environment: string;
            sandboxUrl: string;
            addonUrl: string;
            props: Record<string, string>;
            uiOrigins: string[];
          };
        }[];
      };
      expect(mounts.mounts.map((m) => ({ ...m.options, installationId: undefined }))).toEqual([
        {
          installationId: undefined,
          extension: 'people.list.send_message',
          props: { listId: listUrl![2], list_id: listUrl![2] },
          environment: 'development',
          sandboxUrl: `http://127.0.0.1:${ports.sandbox}/frame.html`,
          addonUrl: expect.stringMatching(new RegExp(`^http://127.0.0.1:${ports.sandbox}/addons/[0-9a-f]{64}\\.js$`)),
          uiOrigins: [],
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
      listPage = listUrl![1]!;
    }
  }, 90_000);

  it('gives the printed walk-through in Chromium: sign in, Authorize in the popup, send to the List [real browser]', async () => {
    expect(first).toBeDefined();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(listPage);
      await page.fill('input[name=email]', 'admin@demo.test');
      await page.fill('input[name=password]', 'demo-start-pw');
      await Promise.all([page.waitForURL(listPage), page.click('button[type=submit]')]);
      const count = Number(/^(\d+) people$/.exec((await page.locator('#list-people-count').textContent())!)![1]);
      const popupOpened = page.waitForEvent('popup');
      await page.getByRole('button', { name: 'Authorize' }).click();
      const popup = await popupOpened;
      const closed = popup.waitForEvent('close');
      // Host consent, then the integrator's login with the printed credentials, then its consent.
      await popup.locator('button[value=allow]').click();
      await popup.waitForURL(new RegExp(`^http://localhost:${ports.integrator}/login`));
      await popup.fill('input[name=username]', 'demo');
      await popup.fill('input[name=password]', 'demo-password');
      await popup.click('button[type=submit]');
      await popup.waitForURL(new RegExp(`^http://localhost:${ports.integrator}/oauth/authorize`));
      await popup.locator('button[value=allow]').click();
      await closed;
      await page.getByText(`${count} of ${count} people selected`).waitFor();
      await page.getByLabel('Message').fill('Choir practice moves to Thursday.');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByText(new RegExp(`^Message \\d+ sent to ${count} people\\.$`)).waitFor();
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('finds the sample add-on again and registers nothing new [restart]', async () => {
    expect(await stopCli(first!.child)).toBe(0);
    first = undefined;
    const run = await startCli(args(), READY, ENV);
    try {
      expect(run.stdout()).toMatch(
        new RegExp(`^  demo List page:    http://localhost:${ports.host}/demo/lists/\\d+ `, 'm'),
      );
      expect(run.stderr()).not.toContain('created the OAuth application');
      expect(run.stderr()).not.toContain('registered the sample add-on');
      expect(run.stderr()).not.toContain('ran ');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  }, 90_000);

  it('runs the platform alone: host and sandbox, no demo pages, no integrator [--no-demo]', async () => {
    const run = await startCli(
      [...args(), '--no-demo'].filter((a, i, all) => a !== '--integrator-port' && all[i - 1] !== '--integrator-port'),
      READY,
      ENV,
    );
    try {
      const host = `http://localhost:${ports.host}`;
      expect(run.stdout()).toContain(
        [
          `  health:            ${host}/health`,
          `  sign in:           ${host}/login`,
          `  add-on sandbox:    http://127.0.0.1:${ports.sandbox}`,
          'demo logins (email / password):',
        ].join('\n'),
      );
      expect(run.stdout()).not.toContain('demo List');
      expect(run.stdout()).not.toContain('integrator');
      expect(run.stderr()).not.toContain('sample add-on');
      expect((await fetch(`${host}/health`)).status).toBe(200);
      const demo = await fetch(`${host}/demo/lists`);
      expect([demo.status, (await demo.json()) as unknown]).toEqual([
        404,
        { errors: [expect.objectContaining({ status: '404' })] },
      ]);
      expect((await fetch(`${host}/assets/addon-sdk/host.js`)).status).toBe(200);
      const frame = await fetch(`http://127.0.0.1:${ports.sandbox}/frame.html`);
      expect(frame.headers.get('content-security-policy')).toContain(`frame-ancestors ${host}`);
      expect((await fetch(`http://127.0.0.1:${ports.sandbox}/sandbox-bootstrap.js`)).status).toBe(200);
      await expect(fetch(`http://localhost:${ports.integrator}/login`)).rejects.toThrow();
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  }, 90_000);
});
