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
import { startFakeHost, type FakeHost } from './fake-host.ts';
import { launchChromium } from './launch-chromium.ts';
import { REPORT_BINDING, type AddonTestEvent, type TestPageReport } from './page/test-page-contract.ts';
import { compileScripts, type RecordedRequest, type ResponseScripts } from './scripted-responses.ts';
import { buildSupportBundles } from './support-bundles.ts';
import { formatTree, queryByText, type UiNode } from './ui-tree.ts';

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

/** A running add-on under test. */
export interface AddonTest {
  /** The add-on's UI now: the top-level components, as plain JSON. */
  readonly tree: UiNode[];
  /** Every call the add-on made so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** The calls no script answered (`not_scripted`, answered 404) or that went to another origin (`not_allowed`). */
  readonly unscripted: readonly RecordedRequest[];
  /** Diagnostics: settled fetches, dropped messages, rejected UI batches, worker errors after start. */
  readonly events: readonly AddonTestEvent[];
  /** The playwright page of the host (for what the helpers do not cover). */
  readonly page: Page;
  /** The first component whose text is `text` (or matches it), innermost; undefined when there is none now. */
  queryByText(text: string | RegExp): UiNode | undefined;
  /** Waits until a component with this text is rendered; rejects with the current UI after the timeout. */
  findByText(text: string | RegExp, options?: { timeout?: number }): Promise<UiNode>;
  /** Calls `check` until it returns without throwing (after each UI update, call or event); its last error after the timeout. */
  waitFor<T>(check: () => T | Promise<T>, options?: { timeout?: number }): Promise<T>;
  /** Clicks the Button whose text is `text` (waiting until it is enabled), in the host's rendering of it. */
  press(text: string, options?: { timeout?: number }): Promise<void>;
  /** Types `value` into the TextField or TextArea labelled `label` and leaves it (onInput, then onChange). */
  type(label: string, value: string, options?: { timeout?: number }): Promise<void>;
  /** Checks (or with `false` unchecks) the Checkbox labelled `label`. */
  check(label: string, checked?: boolean, options?: { timeout?: number }): Promise<void>;
  /** Chooses the option with value `value` in the Select labelled `label`. */
  select(label: string, value: string, options?: { timeout?: number }): Promise<void>;
  /** Closes the page, the fake host and the browser it launched; removes the built script. */
  close(): Promise<void>;
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
  if (!options.entry === !options.script) throw new TypeError('startAddonTest: give exactly one of `entry` and `script`');
  const root = resolve(options.root ?? process.cwd());
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

  let tree: UiNode[] = [];
  const requests: RecordedRequest[] = [];
  const events: AddonTestEvent[] = [];
  const wakers = new Set<() => void>();
  const changed = () => {
    for (const wake of wakers) wake();
  };

  try {
    const supportDir = await buildSupportBundles();
    let addonScript = resolve(root, options.script ?? '');
    if (options.entry) {
      const dir = await mkdtemp(join(tmpdir(), 'addon-kit-test-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      addonScript = (await buildAddon({ entry: options.entry, outFile: join(dir, 'addon.js'), root })).file;
    }
    const host: FakeHost = await startFakeHost({
      supportDir,
      addonScript,
      page: {
        boot: { environment: options.environment ?? 'development', extension: options.extension ?? '', props: options.props ?? {} },
        bootTimeoutMs,
        fetchTimeoutMs: 30_000,
      },
      bases: { service: options.hostApiBase ?? 'https://host.example', integrator: options.integratorApiBase ?? 'https://integrator.example' },
      scripts,
      onRequest(request) {
        requests.push(request);
        changed();
      },
    });
    cleanups.push(() => host.close());

    const browser = options.browser ?? (await launchChromium(options.chromiumPath));
    if (!options.browser) cleanups.push(() => browser.close());
    const context: BrowserContext = await browser.newContext();
    cleanups.push(() => context.close());
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    // The page reports its boot outcome once; a page that never does (its script failed) times out.
    let settleBoot: (error?: Error) => void = () => {};
    const booted = new Promise<void>((resolveBoot, rejectBoot) => {
      settleBoot = (error) => (error ? rejectBoot(error) : resolveBoot());
    });
    await page.exposeFunction(REPORT_BINDING, (report: TestPageReport) => {
      if (report.type === 'ready') settleBoot();
      else if (report.type === 'boot-failed') {
        // The worker imports the add-on across origins, so the browser mutes an error thrown at its top level.
        const hint = /failed to load/.test(report.message) ? ' (the script is missing, or it threw while it first ran)' : '';
        settleBoot(new Error(`startAddonTest: the add-on did not start (${report.code}): ${report.message}${hint}`));
      } else if (report.type === 'ui') tree = report.tree;
      else events.push(report.event);
      changed();
    });
    await page.goto(host.pageUrl);
    const pageTimeout = bootTimeoutMs + 5000;
    const timer = setTimeout(() => settleBoot(new Error(`startAddonTest: the test page did not start the add-on within ${pageTimeout} ms` +
      (pageErrors.length ? ` (page errors: ${pageErrors.join('; ')})` : ''))), pageTimeout);
    await booted.finally(() => clearTimeout(timer));

    const describeState = () => {
      const problems = events.flatMap((e) =>
        e.type === 'worker-error' ? [`worker error: ${e.message}`] : e.type === 'ui-rejected' ? [`UI update rejected: ${e.reason}`] : []);
      const unscripted = requests.filter((r) => r.outcome !== 'scripted').map((r) => `${r.outcome}: ${r.method} ${r.url}`);
      return [`UI now:\n${formatTree(tree)}`, ...problems, ...unscripted].join('\n');
    };

    const nextChange = (ms: number) => new Promise<void>((done) => {
      const wake = () => {
        wakers.delete(wake);
        clearTimeout(timer);
        done();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

    async function waitFor<T>(check: () => T | Promise<T>, waitOptions: { timeout?: number } = {}): Promise<T> {
      const deadline = Date.now() + (waitOptions.timeout ?? timeout);
      for (;;) {
        try {
          return await check();
        } catch (error) {
          const remaining = deadline - Date.now();
          if (remaining <= 0) throw error;
          // Re-check on every report, and at least every 50 ms for conditions the kit does not see change.
          await nextChange(Math.min(remaining, 50));
        }
      }
    }

    /** Runs a playwright action; its failure carries what the add-on shows. */
    const act = async (what: string, action: () => Promise<void>) => {
      try {
        await action();
      } catch (error) {
        const reason = (error as Error).message ?? String(error);
        throw new Error(`${what}: ${reason}\n${describeState()}`);
      }
    };

    return {
      get tree() {
        return tree;
      },
      requests,
      get unscripted() {
        return requests.filter((r) => r.outcome !== 'scripted');
      },
      events,
      page,
      queryByText: (text) => queryByText(tree, text),
      findByText(text, findOptions = {}) {
        const limit = findOptions.timeout ?? timeout;
        return waitFor(() => {
          const node = queryByText(tree, text);
          if (!node) throw new Error(`findByText(${String(text)}): not rendered within ${limit} ms\n${describeState()}`);
          return node;
        }, { timeout: limit });
      },
      waitFor,
      press: (text, o = {}) => act(`press(${JSON.stringify(text)})`, () =>
        page.getByRole('button', { name: text, exact: true }).click({ timeout: o.timeout ?? timeout })),
      type: (label, value, o = {}) => act(`type(${JSON.stringify(label)})`, async () => {
        const field = page.getByLabel(label, { exact: true });
        await field.fill(value, { timeout: o.timeout ?? timeout });
        await field.blur({ timeout: o.timeout ?? timeout });
      }),
      check: (label, checked = true, o = {}) => act(`check(${JSON.stringify(label)})`, () =>
        page.getByRole('checkbox', { name: label, exact: true }).setChecked(checked, { timeout: o.timeout ?? timeout })),
      select: (label, value, o = {}) => act(`select(${JSON.stringify(label)})`, async () => {
        await page.getByLabel(label, { exact: true }).selectOption(value, { timeout: o.timeout ?? timeout });
      }),
      close: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
