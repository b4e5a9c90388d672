/**
 * startAddonTest: runs an add-on in a real Chromium worker, inside the real sandbox frame, against a fake host
 * that answers its calls from scripts, and lets a test read its UI and use it as a person would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AddOnEnvironment, FetchTarget } from '../protocol/messages.ts';
import { buildAddon } from '../vite/build-addon.ts';
import { createAddonTestSession, ObservedState, type AddonTest } from './addon-test-session.ts';
import { startFakeHost, type FakeHost } from './fake-host.ts';
import { launchChromium } from './launch-chromium.ts';
import { REPORT_BINDING, type TestPageReport } from './page/test-page-contract.ts';
import { compileScripts, type ResponseScripts } from './scripted-responses.ts';
import { buildSupportBundles } from './support-bundles.ts';

/** Options of {@link startAddonTest}. */
export interface AddonTestOptions {
  /** The add-on's entry module (absolute, or relative to `root`), built as `buildAddon()` builds it. */
  entry?: string;
  /** Instead of `entry`: an add-on script already built (e.g. `dist/addon.js`), to test exactly what you push. */
  script?: string;
  /** The project directory; default the working directory. */
  root?: string;
  /** Scripted answers by `"METHOD /path"`: `service` for authenticatedFetch, `integrator` for authenticatedIntegratorFetch. */
  responses?: Partial<Record<FetchTarget, ResponseScripts>>;
  /** What `addOnContext().extension` returns; default `""`. */
  extension?: string;
  /** What `addOnContext().props` returns; default `{}`. */
  props?: Record<string, unknown>;
  /** What `addOnEnvironment()` returns; default `development`. */
  environment?: AddOnEnvironment;
  /** The config's `ui_origins`: origins `Image` and `Link` URLs may name (others are rejected as on the host); default none. */
  uiOrigins?: string[];
  /** Base of the host API (relative authenticatedFetch URLs resolve against it); default `https://host.example`. */
  hostApiBase?: string;
  /** Base of the integrator API; default `https://integrator.example`. */
  integratorApiBase?: string;
  /** Chromium's executable; default `CHROMIUM_PATH`, else `/usr/bin/chromium`. Never downloaded. */
  chromiumPath?: string;
  /** A browser to open the test in (left open by `close()`); default: a Chromium launched for this test. */
  browser?: Browser;
  /** How long `findByText`, `waitFor`, `press`, `type`, `check` and `select` wait; default 5000 ms. */
  timeout?: number;
  /** How long the add-on may take to start (the host's boot timeout); default 10000 ms. */
  bootTimeoutMs?: number;
}

/**
 * Builds the add-on (or takes a built script), starts a fake host and the sandbox on loopback, opens the host
 * page in Chromium and waits until the add-on's worker said hello. The host side is the SDK's own: the
 * sandbox frame and its CSP, the broker with the protocol's validation and limits, the UI allow-list check
 * and the host's components — so the add-on meets the contract the real host enforces. Only the host's
 * server is fake: calls are answered from `responses`, and a call nobody scripted gets a 404 (`not_scripted`)
 * that the test sees in `unscripted`. Works with any test runner: it only returns promises and throws errors.
 *
 * @example
 * ```ts
 * import { startAddonTest } from '@addon-kit/sdk/testing';
 *
 * const addon = await startAddonTest({
 *   entry: 'src/index.tsx',
 *   extension: 'people.list.send_message',
 *   props: { listId: '7' },
 *   responses: {
 *     service: { 'GET /people/v2/lists/7/people': { json: { data: [] } } },
 *     integrator: { 'POST /api/messages': { status: 201, json: { id: 'msg_1' } } },
 *   },
 * });
 * try {
 *   await addon.findByText('0 of 0 people selected');
 * } finally {
 *   await addon.close();
 * }
 * ```
 */
export async function startAddonTest(options: AddonTestOptions): Promise<AddonTest> {
  if (!options.entry === !options.script)
    throw new TypeError('startAddonTest: give exactly one of `entry` and `script`');
  const timeout = options.timeout ?? 5000;
  const bootTimeoutMs = options.bootTimeoutMs ?? 10_000;
  const scripts = {
    service: compileScripts(options.responses?.service),
    integrator: compileScripts(options.responses?.integrator),
  };
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  const state = new ObservedState();

  try {
    const supportDir = await buildSupportBundles();
    const addonScript = await addonScriptOf(options, cleanups);
    const host = await startHostFor(options, { supportDir, addonScript, bootTimeoutMs, state, scripts });
    cleanups.push(() => host.close());
    const page = await openPage(options, cleanups);
    await bootAddon(page, host.pageUrl, state, bootTimeoutMs);
    return createAddonTestSession({ page, state, timeout, close: cleanUp });
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** The add-on's script: `entry` built into a temporary folder (removed by a cleanup), or `script` as given. */
async function addonScriptOf(options: AddonTestOptions, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  const root = resolve(options.root ?? process.cwd());
  if (!options.entry) return resolve(root, options.script!);
  const dir = await mkdtemp(join(tmpdir(), 'addon-kit-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return (await buildAddon({ entry: options.entry, outFile: join(dir, 'addon.js'), root })).file;
}

/** The fake host serving the add-on, answering from the scripted responses and recording each call in `state`. */
function startHostFor(
  options: AddonTestOptions,
  run: {
    supportDir: string;
    addonScript: string;
    bootTimeoutMs: number;
    state: ObservedState;
    scripts: Parameters<typeof startFakeHost>[0]['scripts'];
  },
): Promise<FakeHost> {
  const { state } = run;
  return startFakeHost({
    supportDir: run.supportDir,
    addonScript: run.addonScript,
    page: {
      boot: {
        environment: options.environment ?? 'development',
        extension: options.extension ?? '',
        props: options.props ?? {},
      },
      bootTimeoutMs: run.bootTimeoutMs,
      fetchTimeoutMs: 30_000,
      uiOrigins: options.uiOrigins ?? [],
    },
    bases: {
      service: options.hostApiBase ?? 'https://host.example',
      integrator: options.integratorApiBase ?? 'https://integrator.example',
    },
    scripts: run.scripts,
    onRequest(request) {
      state.requests.push(request);
      state.changed();
    },
  });
}

/** A page in a fresh context of the given browser (or of a Chromium launched for this test), closed by cleanups. */
async function openPage(options: AddonTestOptions, cleanups: Array<() => Promise<unknown>>): Promise<Page> {
  const browser = options.browser ?? (await launchChromium(options.chromiumPath));
  if (!options.browser) cleanups.push(() => browser.close());
  const context: BrowserContext = await browser.newContext();
  cleanups.push(() => context.close());
  return context.newPage();
}

/**
 * Opens the test page and waits for the add-on's boot: the page reports its outcome once (then its UI trees and
 * events, kept in `state`); a page that never does (its script failed) times out.
 */
async function bootAddon(page: Page, pageUrl: string, state: ObservedState, bootTimeoutMs: number): Promise<void> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  let settleBoot: (error?: Error) => void = () => {};
  const booted = new Promise<void>((resolveBoot, rejectBoot) => {
    settleBoot = (error) => (error ? rejectBoot(error) : resolveBoot());
  });
  await page.exposeFunction(REPORT_BINDING, (report: TestPageReport) => {
    if (report.type === 'ready') settleBoot();
    else if (report.type === 'boot-failed') {
      // The worker imports the add-on across origins, so the browser mutes an error thrown at its top level.
      const hint = /failed to load/.test(report.message)
        ? ' (the script is missing, or it threw while it first ran)'
        : '';
      settleBoot(new Error(`startAddonTest: the add-on did not start (${report.code}): ${report.message}${hint}`));
    } else if (report.type === 'ui') state.tree = report.tree;
    else state.events.push(report.event);
    state.changed();
  });
  await page.goto(pageUrl);
  const pageTimeout = bootTimeoutMs + 5000;
  const timer = setTimeout(
    () =>
      settleBoot(
        new Error(
          `startAddonTest: the test page did not start the add-on within ${pageTimeout} ms` +
            (pageErrors.length ? ` (page errors: ${pageErrors.join('; ')})` : ''),
        ),
      ),
    pageTimeout,
  );
  await booted.finally(() => clearTimeout(timer));
}
