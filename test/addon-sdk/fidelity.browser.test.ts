import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountEvents, runScenario, startHarness, type Harness } from './harness.ts';

const fixture = fileURLToPath(new URL('./fixtures/fidelity-addon.tsx', import.meta.url));
let harness: Harness;
let page: Page;

beforeAll(async () => {
  harness = await startHarness({ fidelity: fixture });
  harness.servers.states.set('inst-1', 'ready');
  page = await harness.openHostPage();
  await page.evaluate(
    (serviceUrl) =>
      (window as any).mountTestAddon({
        installationId: 'inst-1',
        extension: 'people.list.send_message',
        environment: 'beta',
        props: { listId: '7', serviceUrl },
        addonUrl: 'addons/fidelity.js',
      }),
    harness.servers.serviceUrl,
  );
  await page.waitForFunction(() => (window as any).addonReady === true);
});

afterAll(async () => {
  await harness?.close();
});

describe('authenticatedFetch()', () => {
  it('resolves a 204 with a null body, its headers and the upstream url [no content]', async () => {
    expect(await runScenario(page, 'no-content')).toEqual({
      status: 204,
      statusText: 'No Content',
      ok: true,
      bodyIsNull: true,
      text: '',
      reason: 'nothing',
      url: `${harness.servers.serviceUrl}/fidelity/no-content`,
    });
  });

  it('resolves an upstream 404 as a Response, not a rejection [error status]', async () => {
    expect(await runScenario(page, 'not-found')).toEqual({
      status: 404,
      statusText: 'Not Found',
      ok: false,
      type: 'application/json; charset=utf-8',
      json: { errors: [{ status: '404', title: 'Not Found' }] },
    });
  });

  it('streams a binary body byte for byte [binary]', async () => {
    expect(await runScenario(page, 'binary')).toEqual({
      status: 200,
      type: 'application/octet-stream',
      length: 70_000,
      pattern: true,
    });
  });

  it('keeps repeated headers and never passes Set-Cookie [repeated headers]', async () => {
    expect(await runScenario(page, 'repeated')).toEqual({ multi: 'one, two', setCookie: null, text: 'repeated' });
  });

  it('keeps the method, headers and body of a Request input and of a URL input with init [Request, URL]', async () => {
    const result = (await runScenario(page, 'request-input')) as Record<string, any>;
    expect(result).toEqual({
      request: {
        method: 'PUT',
        custom: 'kept',
        contentType: 'application/x-test',
        authorization: 'Bearer service-access-token',
        cookie: null,
        body: Buffer.from([0, 1, 2, 250, 255]).toString('base64'),
      },
      url: `${harness.servers.serviceUrl}/fidelity/echo`,
      fromUrl: {
        method: 'POST',
        custom: null,
        contentType: 'text/plain;charset=UTF-8',
        authorization: 'Bearer service-access-token',
        cookie: null,
        body: Buffer.from('text body').toString('base64'),
      },
    });
  });

  it('rejects with an AbortError and sends nothing when the signal is already aborted [abort before]', async () => {
    const before = harness.servers.proxyLog.length;
    expect(await runScenario(page, 'abort-before')).toEqual({
      rejected: true,
      name: 'AbortError',
      isTypeError: false,
      code: null,
      detail: null,
    });
    expect(harness.servers.proxyLog.length).toBe(before);
  });

  it('errors the body with an AbortError and closes the upstream request when aborted mid-body [abort during]', async () => {
    const closed = harness.servers.upstreamClosed('/fidelity/slow');
    expect(await runScenario(page, 'abort-during')).toEqual({
      first: 'first-chunk',
      status: 200,
      rejected: true,
      name: 'AbortError',
      isTypeError: false,
      code: null,
      detail: null,
    });
    expect(await closed).toEqual({ finished: false });
  });

  it('rejects with a TypeError carrying code policy_denied for a URL outside the allow-list [policy]', async () => {
    expect(await runScenario(page, 'policy')).toEqual({
      rejected: true,
      name: 'SdkFetchError',
      isTypeError: true,
      code: 'policy_denied',
      detail: 'url_not_allowed',
    });
    expect(harness.servers.serviceLog.some((e) => e.path.includes('steal'))).toBe(false);
  });
});

describe('authenticatedIntegratorFetch()', () => {
  it('goes to the integrator API with the integrator token attached by the proxy [relative url]', async () => {
    expect(await runScenario(page, 'integrator')).toEqual({
      status: 200,
      json: { authorization: 'Bearer integrator-access-token' },
    });
  });
});

describe('addOnEnvironment()', () => {
  it('returns the environment and context the host mounted the add-on with', async () => {
    expect(await runScenario(page, 'environment')).toEqual({
      environment: 'beta',
      context: {
        extension: 'people.list.send_message',
        props: { listId: '7', serviceUrl: harness.servers.serviceUrl },
      },
    });
  });
});

describe('MountedAddon.unmount()', () => {
  it('fails the pending call with unmounted, aborts its upstream request and removes the add-on', async () => {
    const closed = harness.servers.upstreamClosed('/fidelity/hang');
    await page.getByRole('button', { name: 'run pending', exact: true }).click();
    await page.locator('p.addon-kit-text', { hasText: 'pending => running' }).waitFor();
    await expect.poll(() => harness.servers.serviceLog.filter((e) => e.path === '/fidelity/hang').length).toBe(1);
    await page.evaluate(() => (window as any).mounted.unmount());
    expect(await closed).toEqual({ finished: false });
    const events = await mountEvents(page);
    expect(events.filter((e) => e.type === 'fetch' && e.outcome === 'unmounted')).toEqual([
      { type: 'fetch', id: expect.any(Number), target: 'service', outcome: 'unmounted' },
    ]);
    expect(
      await page.evaluate(() => ({
        html: document.getElementById('addon')!.innerHTML,
        frames: document.querySelectorAll('iframe').length,
        status: (window as any).mounted.status(),
      })),
    ).toEqual({
      html: '',
      frames: 0,
      status: { kind: 'unmounted' },
    });
  });
});
