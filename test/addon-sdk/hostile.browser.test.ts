import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountEvents, runScenario, startHarness, type Harness } from './harness.ts';

const fixture = fileURLToPath(new URL('./fixtures/hostile-addon.tsx', import.meta.url));
let harness: Harness;
let page: Page;

/** The host page's own control still works and the add-on's legitimate path still answers. */
async function expectHostStillWorks() {
  const before = Number(await page.locator('#host-count').textContent());
  await page.locator('#host-button').click();
  expect(await page.locator('#host-count').textContent()).toBe(String(before + 1));
}

beforeAll(async () => {
  harness = await startHarness({ hostile: fixture });
  harness.servers.states.set('inst-h', 'ready');
  page = await harness.openHostPage();
  await page.evaluate(
    (hostUrl) =>
      (window as any).mountTestAddon({
        installationId: 'inst-h',
        extension: 'people.list.send_message',
        props: { hostUrl },
        addonUrl: 'addons/hostile.js',
      }),
    harness.servers.hostUrl,
  );
  await page.waitForFunction(() => (window as any).addonReady === true);
});

afterAll(async () => {
  await harness?.close();
});

describe('sandbox frame (hostile add-on)', () => {
  it('blocks a direct fetch with credentials: include before it leaves the browser [connect-src none]', async () => {
    const requests = harness.servers.hostLog.length;
    expect(await runScenario(page, 'direct-fetch')).toEqual({
      '/addons/installations/inst-h/state': 'TypeError',
      '/addons/installations/inst-h/fetch/service': 'TypeError',
    });
    expect(harness.servers.hostLog.slice(requests)).toEqual([]);
    await expectHostStillWorks();
  });

  it('refuses a request body over the cap in the SDK and again in the host broker [huge payload]', async () => {
    const forwarded = harness.servers.serviceLog.length;
    expect(await runScenario(page, 'huge-body')).toEqual({
      viaSdk: 'request_too_large',
      raw: { type: 'fetch.error', code: 'request_too_large' },
    });
    expect(harness.servers.serviceLog.length).toBe(forwarded);
    await expectHostStillWorks();
  });

  it('drops an oversized UI batch without rendering it [huge ui]', async () => {
    expect(await runScenario(page, 'huge-ui')).toEqual({ posted: true });
    await expect
      .poll(
        async () =>
          (await mountEvents(page)).filter((e) => e.type === 'dropped' && e.reason === 'ui batch too large').length,
      )
      .toBe(1);
    expect(await page.locator('#addon').textContent()).not.toContain('xxxxxxxxxx');
    await expectHostStillWorks();
  });

  it('rejects elements and properties outside the allow-list, so no raw HTML reaches the page [forbidden ui]', async () => {
    expect(await runScenario(page, 'forbidden-ui')).toEqual({ posted: 4 });
    await expect
      .poll(async () => (await mountEvents(page)).filter((e) => e.type === 'ui-rejected').map((e) => e.reason))
      .toEqual([
        'element not allowed: iframe',
        'property not allowed: href',
        'origin not declared: src',
        'property not allowed: innerHTML',
      ]);
    expect(
      await page.evaluate(() => ({
        iframes: [...document.querySelectorAll('#addon iframe')].filter(
          (f) => f.getAttribute('title') !== 'add-on sandbox',
        ).length,
        links: document.querySelectorAll('#addon a').length,
        images: document.querySelectorAll('#addon img').length,
      })),
    ).toEqual({ iframes: 0, links: 0, images: 0 });
    await expectHostStillWorks();
  });

  it('drops malformed and unknown messages on the port and keeps serving the add-on [junk]', async () => {
    const before = (await mountEvents(page)).filter((e) => e.type === 'dropped').length;
    expect(await runScenario(page, 'junk')).toEqual({ posted: 7 });
    await expect
      .poll(async () => (await mountEvents(page)).filter((e) => e.type === 'dropped').length - before)
      .toBe(7);
    expect(await runScenario(page, 'ping')).toEqual({ status: 200, body: 'still working' });
    await expectHostStillWorks();
  });

  it('ignores spoofed sandbox and worker-error messages from another frame while running [spoofed postMessage]', async () => {
    const before = (await mountEvents(page)).length;
    await loadSpoofFrame(page, 'inst-h');
    expect((await mountEvents(page)).slice(before)).toEqual([]);
    expect(await page.evaluate(() => (window as any).mounted.status())).toEqual({ kind: 'running' });
    expect(await runScenario(page, 'ping')).toEqual({ status: 200, body: 'still working' });
    await expectHostStillWorks();
  });

  it('ignores a spoofed handshake report from another frame while the Authorize popup is open [spoofed postMessage]', async () => {
    harness.servers.states.set('inst-spoof', 'uninitialized');
    const other = await harness.openHostPage();
    await other.evaluate(() =>
      (window as any).mountTestAddon({
        installationId: 'inst-spoof',
        extension: 'people.list.send_message',
        addonUrl: 'addons/hostile.js',
      }),
    );
    const popupOpened = other.waitForEvent('popup');
    await other.getByRole('button', { name: 'Authorize' }).click();
    const popup = await popupOpened;
    const stateReads = () =>
      harness.servers.hostLog.filter((l) => l === 'GET /addons/installations/inst-spoof/state').length;
    const before = stateReads();
    await loadSpoofFrame(other, 'inst-spoof');
    expect(await other.evaluate(() => (window as any).mounted.status())).toEqual({ kind: 'authorizing' });
    expect(stateReads()).toBe(before);
    await popup.close();
    await other.getByRole('button', { name: 'Authorize' }).waitFor();
    expect(await other.evaluate(() => (window as any).mounted.status())).toEqual({
      kind: 'needs_authorization',
      state: 'uninitialized',
    });
    await other.close();
  });
});

describe('ui images and links (hostile add-on)', () => {
  it('loads an image of a declared origin and never requests one of an undeclared origin [ui_origins]', async () => {
    const declared = await startImageServer();
    const attacker = await startImageServer();
    try {
      harness.servers.states.set('inst-img', 'ready');
      const other = await harness.openHostPage();
      await other.evaluate(
        (o) =>
          (window as any).mountTestAddon({
            installationId: 'inst-img',
            extension: 'people.list.send_message',
            addonUrl: 'addons/hostile.js',
            uiOrigins: [o.declared],
            props: o.props,
          }),
        {
          declared: declared.url,
          props: {
            declaredImage: `${declared.url}/pixel.png`,
            undeclaredImage: `${attacker.url}/pixel.png?data=secret`,
          },
        },
      );
      await other.waitForFunction(() => (window as any).addonReady === true);
      const image = other.locator('#addon img');

      expect(await runScenario(other, 'declared-image')).toEqual({ shown: true });
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
      expect(declared.requests).toEqual(['GET /pixel.png']);

      expect(await runScenario(other, 'undeclared-image')).toEqual({ shown: true });
      expect(await runScenario(other, 'undeclared-raw')).toEqual({ posted: 2 });
      // Time for a request to the undeclared origin to land, had the page made one (the declared one took far less).
      await other.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      expect(attacker.requests).toEqual([]);
      expect(declared.requests).toEqual(['GET /pixel.png']);
      await expect
        .poll(async () => (await mountEvents(other)).filter((e) => e.type === 'ui-rejected').map((e) => e.reason))
        .toEqual(['origin not declared: src', 'origin not declared: src', 'origin not declared: href']);
      expect(await image.getAttribute('src')).toBe(`${declared.url}/pixel.png`);
      expect(await other.locator('#addon a').count()).toBe(0);
      await other.close();
    } finally {
      await declared.close();
      await attacker.close();
    }
  });
});

/** A real local HTTP server answering every request with a 1×1 PNG and recording `METHOD /path?query`. */
async function startImageServer(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res
      .writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length, 'Cache-Control': 'no-store' })
      .end(png);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Adds a frame from the sandbox origin that posts forged sandbox, worker-error, handshake and boot messages. */
async function loadSpoofFrame(target: Page, installationId: string) {
  await target.evaluate((url) => {
    const frame = document.createElement('iframe');
    frame.src = url;
    document.body.append(frame);
    return new Promise((resolve) => frame.addEventListener('load', resolve));
  }, `${harness.servers.sandboxUrl}/spoof.html?installation=${installationId}`);
  // Messages posted during load are delivered before a round trip through the page completes.
  await target.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}
