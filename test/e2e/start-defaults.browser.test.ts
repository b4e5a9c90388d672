/**
 * The README's `npm start` exactly as a new user meets it: `addon-kit start` with no arguments, run from a
 * fresh directory outside the repository (so the data directory is `<tmp>/.addon-kit`, a dot-folder) on the
 * default ports 4000, 4001 and 4100; then the printed walk-through in Chromium, from sign-in to a sent message.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { drivePopup, launchBrowser } from '../support/browser.ts';
import { startCli, stopCli, type RunningCli } from '../support/cli.ts';

const HOST = 'http://localhost:4000';
const SANDBOX = 'http://127.0.0.1:4001';
const INTEGRATOR = 'http://localhost:4100';
const READY = /^admin@other\.test \/ .*$/m;

/** Nothing from this shell may change a default: every ADDON_KIT_*, INTEGRATOR_* and DATABASE_URL goes. */
const UNSET = [...Object.keys(process.env).filter((name) => /^(ADDON_KIT|INTEGRATOR)_/.test(name)), 'DATABASE_URL'];

describe('addon-kit start (README defaults)', () => {
  it('shows the sample add-on on the printed List page and sends a message after the handshake [no arguments]', async (ctx) => {
    ctx.skip(
      Boolean(process.env.DATABASE_URL),
      'runs on the PGlite run only: it uses the fixed default ports, and the database is not what it tests',
    );
    const cwd = await mkdtemp(join(tmpdir(), 'addon-kit-defaults-'));
    let run: RunningCli | undefined;
    const browser = await launchBrowser();
    try {
      run = await startCli(['start'], READY, {}, { cwd, unset: UNSET });
      const stdout = run.stdout();
      const listening = `^addon-kit host listening on ${HOST} \\(embedded PGlite in ${cwd}/\\.addon-kit; ready in \\d+ ms\\)$`;
      expect(stdout).toMatch(new RegExp(listening, 'm'));
      expect((await stat(join(cwd, '.addon-kit', 'addon-sdk', 'host.js'))).isFile()).toBe(true);
      const listPage = new RegExp(`^  demo List page:    (${HOST}/demo/lists/\\d+) `, 'm').exec(stdout)?.[1];
      expect(listPage).toBeDefined();
      expect(stdout).toContain(
        `  add-on sandbox:    ${SANDBOX}\n  integrator:        ${INTEGRATOR}\n  integrator login:  demo / demo-password\n`,
      );
      const password = /^admin@demo\.test \/ (\S+)$/m.exec(stdout)![1]!;

      const page = await browser.newPage();
      await page.goto(listPage!);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name=email]', 'admin@demo.test');
      await page.fill('input[name=password]', password);
      await Promise.all([page.waitForURL(listPage!), page.click('button[type=submit]')]);
      const count = Number(/^(\d+) people$/.exec((await page.locator('#list-people-count').textContent())!)![1]);
      expect(count).toBeGreaterThan(0);

      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        page.getByRole('button', { name: 'Authorize' }).click(),
      ]);
      const seen = await drivePopup(popup, {
        origins: { [HOST]: 'host', [INTEGRATOR]: 'integrator' },
        integrator: { username: 'demo', password: 'demo-password' },
      });
      // Host consent (already signed in), the integrator's login, its consent; the rest are redirects.
      expect(seen).toEqual(['host/oauth/interaction/:uid', 'integrator/login', 'integrator/oauth/authorize']);
      await page.getByText(`${count} of ${count} people selected`).waitFor();
      expect(new URL((await page.locator('iframe').getAttribute('src'))!).origin).toBe(SANDBOX);
      await page.getByLabel('Message').fill('The picnic starts at noon.');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByText(new RegExp(`^Message \\d+ sent to ${count} people\\.$`)).waitFor();
    } finally {
      await browser.close();
      if (run) expect(await stopCli(run.child)).toBe(0);
      await rm(cwd, { recursive: true, force: true });
    }
  }, 150_000);
});
