/**
 * Checks the browser tests run on each page a person meets: axe-core's accessibility rules (zero violations
 * of serious or critical impact) and, when `SCREENSHOTS_DIR` is set, a PNG of the page (`npm run screenshots`).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

/** One axe violation as the tests report it. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

let axeSource: Promise<string> | undefined;

/** axe-core's browser bundle, read once per test file. */
function loadAxe(): Promise<string> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/** Violations as lines a person can act on: rule, impact, help, and each element with what is wrong. */
export function describeViolations(violations: Violation[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes.map(
        (n) => `    at ${JSON.stringify(n.target)}\n      ${(n.failureSummary ?? '').replace(/\n/g, '\n      ')}`,
      );
      return `  ${v.id} (${v.impact}): ${v.help}\n    ${v.helpUrl}\n${nodes.join('\n')}`;
    })
    .join('\n');
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules and best practices) on the page as it is and fails with a readable list
 * when any violation is serious or critical. axe is evaluated through the DevTools protocol rather than added as a
 * script element: the pages' CSP allows no script of the test's.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${await loadAxe()}\n;0`);
  const { violations, rulesPassed } = (await page.evaluate(async () => {
    type Results = { violations: unknown[]; passes: unknown[] };
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<Results> } }).axe;
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return { violations: results.violations, rulesPassed: results.passes.length };
  })) as { violations: Violation[]; rulesPassed: number };
  // A run that checked nothing would pass anything.
  expect(rulesPassed, `axe checked no rule on ${name}`).toBeGreaterThan(10);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.length, `accessibility violations on ${name} (${page.url()}):\n${describeViolations(serious)}`).toBe(
    0,
  );
}

/** Where screenshots go (`SCREENSHOTS_DIR`, relative to the repository root), or undefined when none are wanted. */
export function screenshotsDir(): string | undefined {
  const dir = process.env.SCREENSHOTS_DIR;
  return dir ? resolve(dir) : undefined;
}

/** Saves `<SCREENSHOTS_DIR>/<name>.png` of the viewport when screenshots are wanted; no-op otherwise. */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const dir = screenshotsDir();
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  // No hover state, caret or animation: the same pages give the same pixels.
  await page.mouse.move(0, 0);
  await page.screenshot({
    path: join(dir, `${name}.png`),
    animations: 'disabled',
    caret: 'hide',
    fullPage: options.fullPage ?? false,
  });
}

/** Checks a page (accessibility) and saves its screenshot when wanted: what every walk-through step does. */
export async function checkPage(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await saveScreenshot(page, name, options);
  await expectAccessible(page, name);
}

/**
 * Collects what Chromium reports as refused by a page's Content-Security-Policy (a blocked stylesheet, inline style,
 * image or script) on every page of `context`, from now on.
 */
export function collectPolicyViolations(context: BrowserContext): string[] {
  const violations: string[] = [];
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text()))
      violations.push(`${message.location().url}: ${message.text()}`);
  });
  return violations;
}
