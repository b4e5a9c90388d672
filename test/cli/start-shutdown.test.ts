/**
 * `addon-kit start` stops promptly on SIGTERM after proxied add-on calls whose browser went away mid-request
 * (what a load test's end, or closed tabs, leave behind): the fetch proxy's 60 s deadline must not outlive them.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_DEFAULTS } from '#integrator/config.ts';
import {
  CSRF_FORM_FIELD,
  CSRF_HEADER,
  FETCH_HEADER,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
} from '@addon-kit/sdk/protocol';
import { startCli } from '../support/cli.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { TestBrowser } from '../support/oauth-browser.ts';
import { runAuthorization } from '../support/oauth-flow.ts';
import { authorizeInBrowser, Browser } from '#integrator/test/support.ts';

const PASSWORD = 'shutdown-test-pw';
let dataDir: string;
let databaseUrl: string | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-shutdown-'));
  databaseUrl = await createEmptyPostgresDatabase();
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** The admin's finished two-way handshake over real HTTP; returns the proxy call's headers and URL. */
async function readyInstallation(
  url: string,
  integratorUrl: string,
): Promise<{ proxyUrl: string; headers: Record<string, string> }> {
  const host = new TestBrowser(url);
  const login = await host.submit(await host.request('/login'), { email: 'admin@demo.test', password: PASSWORD });
  expect(login.status).toBe(303);
  const list = await host.request('/addons/installations', { headers: { accept: 'application/json' } });
  const { data, csrf_token: csrf } = JSON.parse(list.body) as {
    data: { id: string; oauth_application_id: number }[];
    csrf_token: string;
  };
  const installation = data[0]!.id;
  const start = await host.request(`/addons/installations/${installation}/authorize`, {
    form: { [CSRF_FORM_FIELD]: csrf },
    headers: { origin: url },
  });
  const completion = await runAuthorization(host, new URL(start.location!), { password: PASSWORD });
  const integratorBrowser = new Browser();
  const toAdvance = await integratorBrowser.fetch(completion.toString());
  const toIntegrator = await host.request(new URL(toAdvance.headers.get('location')!).toString());
  const callback = await authorizeInBrowser(integratorBrowser, toIntegrator.location!, DEVELOPMENT_DEFAULTS.user);
  const done = await host.request(callback.toString());
  expect(done.status).toBe(200);
  const state = await host.request(`/addons/installations/${installation}/state`, {
    headers: { accept: 'application/json' },
  });
  expect(JSON.parse(state.body)).toEqual({ state: 'ready' });
  return {
    proxyUrl: `${url}/addons/installations/${installation}/fetch/integrator`,
    headers: {
      cookie: host.jar.header(`/addons/installations/${installation}/fetch/integrator`),
      [CSRF_HEADER]: csrf,
      origin: url,
      [FETCH_HEADER]: encodeEnvelope({ method: 'GET', url: `${integratorUrl}/api/messages`, headers: [] }),
    },
  };
}

/** Sends a proxied call and closes the connection right after the request went out, as a closed tab does. */
function abandon(proxyUrl: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request(proxyUrl, { method: 'POST', headers });
    outgoing.on('error', () => resolve());
    outgoing.on('close', () => resolve());
    outgoing.end(() => setImmediate(() => outgoing.destroy()));
  });
}

describe('addon-kit start [SIGTERM]', () => {
  it(
    'exits with code 0 within a few seconds after proxied calls whose browser went away mid-request',
    { timeout: 180_000 },
    async () => {
      const args = [
        'start',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--demo-password',
        PASSWORD,
        ...(databaseUrl ? ['--database-url', databaseUrl] : []),
      ];
      const run = await startCli(args, /^admin@other\.test \/ .*$/m);
      const exited = new Promise<number | null>((resolve) => run.child.once('exit', (code) => resolve(code)));
      try {
        const url = /listening on (http:\/\/\S+)/.exec(run.stdout())![1]!;
        const integratorUrl = /integrator: +(http:\/\/\S+)/.exec(run.stdout())![1]!;
        const call = await readyInstallation(url, integratorUrl);
        // The proxy works end to end, then twenty calls are abandoned mid-request.
        const served = await fetch(call.proxyUrl, { method: 'POST', headers: call.headers });
        expect(served.status).toBe(200);
        expect((decodeEnvelope(served.headers.get(UPSTREAM_HEADER)!) as { status: number }).status).toBe(200);
        await served.arrayBuffer();
        await Promise.all(Array.from({ length: 20 }, () => abandon(call.proxyUrl, call.headers)));
        // Let the host finish the abandoned calls (upstream answered, nobody to relay to).
        await new Promise((resolve) => setTimeout(resolve, 1500));
      } finally {
        run.child.removeAllListeners('close');
        const stopped = performance.now();
        run.child.kill('SIGTERM');
        const code = await Promise.race([
          exited,
          new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 8000)),
        ]);
        if (code === 'still running') run.child.kill('SIGKILL');
        expect({ code, seconds: Math.round((performance.now() - stopped) / 1000) < 8 }).toEqual({
          code: 0,
          seconds: true,
        });
      }
    },
  );
});
