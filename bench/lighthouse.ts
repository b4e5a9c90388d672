/**
 * Lighthouse's accessibility and best-practices scores of the host's pages, as a signed-in person meets them
 * (issue 28 asks ≥ 95 on /login, /docs, a List page with its add-on and the developer pages), plus a screenshot of
 * each page at 1280 px for the README.
 *
 * Lighthouse is not a dependency of the project (it pulls in a browser download helper and ~150 packages): install
 * version 12.2.3 (13 needs Node 22) into a scratch folder and pass it, with a running host (`npm start`):
 *   npm i --prefix /tmp/lh lighthouse@12.2.3
 *   npx tsx --conditions=source bench/lighthouse.ts /tmp/lh [--url http://localhost:4000] [--data-dir .addon-kit]
 *     [--screenshots docs/screenshots/pages/after] [--docs /docs?api=people]
 * It signs in as the demo's admin (the password `start` keeps in the data directory, or ADDON_KIT_DEMO_PASSWORD),
 * runs Lighthouse against Debian's Chromium with the session cookie, and prints a Markdown table with each page's
 * scores and the audits that failed.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { defaultChromiumPath } from '#sdk/testing/launch-chromium.ts';
import { readDemoPassword } from '#host/demo/seed/demo-password.ts';

const run = promisify(execFile);

interface LighthouseReport {
  finalDisplayedUrl: string;
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string }>;
}

/** One page measured: where, with or without the session, and when it is ready for its screenshot. */
interface Target {
  name: string;
  path: string;
  signedIn: boolean;
  ready?: string;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string', default: 'http://localhost:4000' },
    'data-dir': { type: 'string', default: '.addon-kit' },
    screenshots: { type: 'string' },
    // The reference's address: `/docs/api` before /docs rendered every API.
    docs: { type: 'string', default: '/docs?api=people' },
  },
});
const lighthouseDir = positionals[0];
if (!lighthouseDir) {
  console.error(
    'usage: bench/lighthouse.ts <folder with lighthouse@12.2.3 installed> [--url] [--data-dir] [--screenshots]',
  );
  process.exit(2);
}
const base = values.url.replace(/\/$/, '');
const password = process.env.ADDON_KIT_DEMO_PASSWORD ?? (await readDemoPassword(resolve(values['data-dir'])));
if (!password) {
  console.error(`no demo password: none in ${values['data-dir']}/demo-password and ADDON_KIT_DEMO_PASSWORD is unset`);
  process.exit(2);
}

/** Signs in through the login form; the `Cookie` header of the session. */
async function signIn(page: Page): Promise<string> {
  await page.goto(`${base}/login`);
  await page.locator('input[name=email]').fill('admin@demo.test');
  await page.locator('input[name=password]').fill(password!);
  await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), page.locator('form button').first().click()]);
  const cookies = await page.context().cookies(base);
  return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}

/** The first List's page and the developer pages the signed-in person sees. */
async function targets(page: Page): Promise<Target[]> {
  await page.goto(`${base}/demo/lists`);
  const list = await page.locator('a[href^="/demo/lists/"]').first().getAttribute('href');
  return [
    { name: 'login', path: '/login', signedIn: false },
    { name: 'docs', path: values.docs, signedIn: true, ready: '#reference .opblock' },
    { name: 'list-with-addon', path: list ?? '/demo/lists', signedIn: true, ready: 'iframe' },
    { name: 'developer', path: '/developer', signedIn: true },
    { name: 'developer-account', path: '/developer/account', signedIn: true },
    { name: 'developer-tokens', path: '/developer/personal-access-tokens', signedIn: true },
    { name: 'developer-oauth-applications', path: '/developer/oauth-applications', signedIn: true },
    { name: 'developer-connected-applications', path: '/developer/connected-applications', signedIn: true },
    { name: 'developer-webhooks', path: '/developer/webhooks', signedIn: true },
  ];
}

/** Lighthouse's two categories for one URL, run in its own headless Chromium. */
async function lighthouse(
  url: string,
  headersFile: string | undefined,
): Promise<LighthouseReport | { unmeasured: string }> {
  const cli = join(resolve(lighthouseDir!), 'node_modules/lighthouse/cli/index.js');
  const args = [
    cli,
    url,
    '--only-categories=accessibility,best-practices',
    '--output=json',
    '--quiet',
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
    ...(headersFile ? [`--extra-headers=${headersFile}`] : []),
  ];
  try {
    const { stdout } = await run(process.execPath, args, {
      env: { ...process.env, CHROME_PATH: defaultChromiumPath() },
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout) as LighthouseReport;
  } catch (error) {
    // Lighthouse exits non-zero when the page could not be measured (a 404 on an older host): its reason.
    const reason = (error as { stderr?: string }).stderr?.match(/Runtime error encountered: (.*)/)?.[1];
    return { unmeasured: reason ?? String(error) };
  }
}

/** The audits of `category` that failed (score below 1 with weight), by title. */
function failures(report: LighthouseReport, category: string): string[] {
  return report.categories[category]!.auditRefs.filter((ref) => ref.weight > 0)
    .map((ref) => report.audits[ref.id]!)
    .filter((audit) => audit.scoreDisplayMode === 'binary' || audit.scoreDisplayMode === 'numeric')
    .filter((audit) => audit.score !== null && audit.score < 1)
    .map((audit) => audit.title);
}

const browser = await chromium.launch({ executablePath: defaultChromiumPath() });
const work = join(tmpdir(), `lighthouse-${process.pid}`);
await mkdir(work, { recursive: true });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cookie = await signIn(page);
  const headersFile = join(work, 'headers.json');
  await writeFile(headersFile, JSON.stringify({ Cookie: cookie }));
  const pages = await targets(page);
  const anonymous = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  if (values.screenshots) await mkdir(values.screenshots, { recursive: true });

  console.log('| page | path | accessibility | best practices | failed audits |');
  console.log('| --- | --- | ---: | ---: | --- |');
  for (const target of pages) {
    if (values.screenshots) {
      const shooter = target.signedIn ? page : anonymous;
      await shooter.goto(`${base}${target.path}`);
      if (target.ready)
        await shooter
          .locator(target.ready)
          .first()
          .waitFor({ timeout: 15_000 })
          .catch(() => {});
      await shooter.waitForTimeout(1500);
      await shooter.screenshot({ path: join(values.screenshots, `${target.name}.png`) });
    }
    const report = await lighthouse(`${base}${target.path}`, target.signedIn ? headersFile : undefined);
    if ('unmeasured' in report) {
      console.log(`| ${target.name} | \`${target.path}\` | — | — | not measured: ${report.unmeasured} |`);
      continue;
    }
    // A session Lighthouse did not carry would measure the login page instead: say so rather than score it.
    if (target.signedIn && new URL(report.finalDisplayedUrl).pathname === '/login') {
      throw new Error(`${target.path}: Lighthouse was sent to /login (the session cookie was not accepted)`);
    }
    const score = (id: string) => Math.round((report.categories[id]!.score ?? 0) * 100);
    const failed = [...failures(report, 'accessibility'), ...failures(report, 'best-practices')];
    console.log(
      `| ${target.name} | \`${target.path}\` | ${score('accessibility')} | ${score('best-practices')} | ${failed.join('; ') || '—'} |`,
    );
  }
} finally {
  await browser.close();
  await rm(work, { recursive: true, force: true });
}
