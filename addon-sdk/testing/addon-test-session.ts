/**
 * The test's side of a running add-on: what it shows (the UI tree, the calls, the diagnostics, all kept up
 * to date by the page's reports), waiting for it, and acting on the host's rendering as a person would.
 */
import type { Page } from 'playwright-core';
import type { AddonTestEvent } from './page/test-page-contract.ts';
import type { RecordedRequest } from './scripted-responses.ts';
import { formatTree, queryByText, type UiNode } from './ui-tree.ts';

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

/** What the page and the fake host reported so far; waiters wake on every report. */
export class ObservedState {
  tree: UiNode[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly events: AddonTestEvent[] = [];
  private readonly wakers = new Set<() => void>();

  /** Something was reported. */
  changed(): void {
    for (const wake of this.wakers) wake();
  }

  /** Resolves at the next report, or after `ms`. */
  nextChange(ms: number): Promise<void> {
    return new Promise((done) => {
      const wake = () => {
        this.wakers.delete(wake);
        clearTimeout(timer);
        done();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** For failure messages: the UI now, worker errors, rejected UI updates and calls nobody scripted. */
  describe(): string {
    const problems = this.events.flatMap((e) =>
      e.type === 'worker-error'
        ? [`worker error: ${e.message}`]
        : e.type === 'ui-rejected'
          ? [`UI update rejected: ${e.reason}`]
          : [],
    );
    const unscripted = this.requests
      .filter((r) => r.outcome !== 'scripted')
      .map((r) => `${r.outcome}: ${r.method} ${r.url}`);
    return [`UI now:\n${formatTree(this.tree)}`, ...problems, ...unscripted].join('\n');
  }
}

/** The {@link AddonTest} over a booted page; `timeout` is the default wait of every helper. */
export function createAddonTestSession(options: {
  page: Page;
  state: ObservedState;
  timeout: number;
  close(): Promise<void>;
}): AddonTest {
  const { page, state, timeout } = options;

  async function waitFor<T>(check: () => T | Promise<T>, waitOptions: { timeout?: number } = {}): Promise<T> {
    const deadline = Date.now() + (waitOptions.timeout ?? timeout);
    for (;;) {
      try {
        return await check();
      } catch (error) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw error;
        // Re-check on every report, and at least every 50 ms for conditions the kit does not see change.
        await state.nextChange(Math.min(remaining, 50));
      }
    }
  }

  /** Runs a playwright action; its failure carries what the add-on shows. */
  const act = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
    } catch (error) {
      throw new Error(`${what}: ${(error as Error).message ?? String(error)}\n${state.describe()}`, { cause: error });
    }
  };

  return {
    get tree() {
      return state.tree;
    },
    requests: state.requests,
    get unscripted() {
      return state.requests.filter((r) => r.outcome !== 'scripted');
    },
    events: state.events,
    page,
    queryByText: (text) => queryByText(state.tree, text),
    findByText(text, findOptions = {}) {
      const limit = findOptions.timeout ?? timeout;
      return waitFor(
        () => {
          const node = queryByText(state.tree, text);
          if (!node)
            throw new Error(`findByText(${String(text)}): not rendered within ${limit} ms\n${state.describe()}`);
          return node;
        },
        { timeout: limit },
      );
    },
    waitFor,
    press: (text, o = {}) =>
      act(`press(${JSON.stringify(text)})`, () =>
        page.getByRole('button', { name: text, exact: true }).click({ timeout: o.timeout ?? timeout }),
      ),
    type: (label, value, o = {}) =>
      act(`type(${JSON.stringify(label)})`, async () => {
        const field = page.getByLabel(label, { exact: true });
        await field.fill(value, { timeout: o.timeout ?? timeout });
        await field.blur({ timeout: o.timeout ?? timeout });
      }),
    check: (label, checked = true, o = {}) =>
      act(`check(${JSON.stringify(label)})`, () =>
        page.getByRole('checkbox', { name: label, exact: true }).setChecked(checked, { timeout: o.timeout ?? timeout }),
      ),
    select: (label, value, o = {}) =>
      act(`select(${JSON.stringify(label)})`, async () => {
        await page.getByLabel(label, { exact: true }).selectOption(value, { timeout: o.timeout ?? timeout });
      }),
    close: () => options.close(),
  };
}
