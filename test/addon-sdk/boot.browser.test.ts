import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    silent: fixture('silent-addon.ts'),
    future: fixture('future-addon.ts'),
    throwing: fixture('throwing-addon.ts'),
    fidelity: fixture('fidelity-addon.tsx'),
  });
  for (const id of ['b1', 'b2', 'b3', 'b4', 't1']) harness.servers.states.set(id, 'ready');
});

afterAll(async () => {
  await harness?.close();
});

/** Mounts `addonUrl` in a fresh page and returns the boot error code and what the page shows. */
async function bootFailure(
  installationId: string,
  addonUrl: string,
): Promise<{ code: string; text: string; frames: number; page: Page }> {
  const page = await harness.openHostPage();
  await page.evaluate(
    ([id, url]) =>
      (window as any).mountTestAddon({
        installationId: id,
        extension: 'people.list.send_message',
        addonUrl: url,
        bootTimeoutMs: 1500,
      }),
    [installationId, addonUrl],
  );
  await page.waitForFunction(() => (window as any).addonBootError !== undefined);
  return {
    code: await page.evaluate(() => (window as any).addonBootError),
    text: (await page.locator('#addon').textContent()) ?? '',
    frames: await page.locator('iframe').count(),
    page,
  };
}

describe('mountAddon() boot handshake', () => {
  it('reports boot_timeout when the add-on never says hello within bootTimeoutMs [silent worker]', async () => {
    const page = await harness.openHostPage();
    // Time stands still until the test moves it.
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    await page.evaluate(() =>
      (window as any).mountTestAddon({
        installationId: 'b1',
        extension: 'people.list.send_message',
        addonUrl: 'addons/silent.js',
        bootTimeoutMs: 10_000,
      }),
    );
    await page.waitForFunction(() =>
      (window as any).addonEvents.some((e: any) => e.type === 'status' && e.status.kind === 'starting'),
    );
    await page.clock.runFor(9_999);
    expect(await page.evaluate(() => (window as any).mounted.status())).toEqual({ kind: 'starting' });
    await page.clock.runFor(2);
    await page.waitForFunction(() => (window as any).addonBootError !== undefined);
    expect({
      code: await page.evaluate(() => (window as any).addonBootError),
      text: await page.locator('#addon').textContent(),
      frames: await page.locator('iframe').count(),
    }).toEqual({ code: 'boot_timeout', text: 'The add-on could not start (boot_timeout).', frames: 0 });
    await page.close();
  });

  it('reports protocol_mismatch when the worker speaks another protocol version [version]', async () => {
    const { code, text, frames, page } = await bootFailure('b2', 'addons/future.js');
    expect({ code, text, frames }).toEqual({
      code: 'protocol_mismatch',
      text: 'The add-on could not start (protocol_mismatch).',
      frames: 0,
    });
    await page.close();
  });

  it('reports worker_failed when the add-on script throws at start [throwing worker]', async () => {
    const { code, text, page } = await bootFailure('b3', 'addons/throwing.js');
    expect({ code, text }).toEqual({ code: 'worker_failed', text: 'The add-on could not start (worker_failed).' });
    await page.close();
  });

  it('reports worker_failed when the add-on script cannot be loaded [404]', async () => {
    const { code, page } = await bootFailure('b4', 'addons/missing.js');
    expect(code).toBe('worker_failed');
    await page.close();
  });

  it('refuses an add-on script from another origin without starting a worker [foreign script]', async () => {
    const loads = () => harness.servers.hostLog.filter((l) => l === 'GET /assets/addon-sdk/host.js').length;
    const before = loads();
    const { code, page } = await bootFailure('b4', `${harness.servers.hostUrl}/assets/addon-sdk/host.js`);
    expect(code).toBe('worker_failed');
    // Only the host page's own import: the frame's CSP (script-src) blocked the foreign script before any request.
    expect(loads() - before).toBe(1);
    await page.close();
  });
});

describe('mountAddon() fetch timeout', () => {
  it('rejects with code timeout and closes the upstream request when no response head arrives within fetchTimeoutMs', async () => {
    const page = await harness.openHostPage();
    await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    await page.evaluate(() =>
      (window as any).mountTestAddon({
        installationId: 't1',
        extension: 'people.list.send_message',
        addonUrl: 'addons/fidelity.js',
        fetchTimeoutMs: 5_000,
      }),
    );
    await page.waitForFunction(() => (window as any).addonReady === true);
    const closed = harness.servers.upstreamClosed('/fidelity/hang');
    await page.getByRole('button', { name: 'run pending', exact: true }).click();
    await expect.poll(() => harness.servers.serviceLog.filter((e) => e.path === '/fidelity/hang').length).toBe(1);
    await page.clock.runFor(4_999);
    expect(await page.locator('p.addon-kit-text').textContent()).toBe('pending => running');
    await page.clock.runFor(2);
    expect(await runScenarioResult(page, 'pending')).toEqual({
      thrown: { name: 'SdkFetchError', isTypeError: true, code: 'timeout', detail: null },
    });
    expect(await closed).toEqual({ finished: false });
    await page.close();
  });
});

/** The rendered result of a scenario already started. */
async function runScenarioResult(page: Page, name: string): Promise<unknown> {
  const content =
    (await page.locator('p.addon-kit-text', { hasText: new RegExp(`^${name} => (?!running)`) }).textContent()) ?? '';
  const value = content.slice(`${name} => `.length);
  return value.startsWith('error ') ? { thrown: JSON.parse(value.slice(6)) } : JSON.parse(value);
}
