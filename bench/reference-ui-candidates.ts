/**
 * Measures the OpenAPI reference UIs /docs could use, each as its package ships it for a page without a
 * build step: gzip size of what the page loads, Content-Security-Policy violations under the host pages'
 * policy (plus `script-src 'self'` and `connect-src 'self'`: no inline script, no eval, no inline style),
 * whether it rendered the People document at all, axe-core's serious and critical violations, and whether
 * its background follows `prefers-color-scheme: dark`.
 *
 * The candidates are not dependencies of the project: install them into a scratch folder and pass it,
 *   npm i --prefix /tmp/refui @scalar/api-reference swagger-ui-dist rapidoc redoc @stoplight/elements
 *   npx tsx --conditions=source bench/reference-ui-candidates.ts /tmp/refui
 * Prints a Markdown table (host/api/README.md keeps the one the choice was made from).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { defaultChromiumPath } from '#sdk/testing/launch-chromium.ts';
import { productDocument } from '#host/openapi/product-document.ts';
import { peopleApi } from '#host/openapi/apis.ts';
import { peopleRouter } from '#host/people/people-router.ts';
import { pageSecurityPolicy } from '#host/pages/render.tsx';

interface Candidate {
  name: string;
  /** Files the page loads, relative to node_modules. */
  scripts: string[];
  styles: string[];
  /** The external script that starts it (served as /init.js). */
  init: string;
  /** The element the UI renders into. */
  body: string;
}

const CANDIDATES: Candidate[] = [
  {
    name: 'Scalar API Reference',
    scripts: ['@scalar/api-reference/dist/browser/standalone.js'],
    styles: [],
    init: "Scalar.createApiReference('#app', { url: '/doc.json' });",
    body: '<div id="app"></div>',
  },
  {
    name: 'Swagger UI',
    scripts: ['swagger-ui-dist/swagger-ui-bundle.js'],
    styles: ['swagger-ui-dist/swagger-ui.css'],
    init: "SwaggerUIBundle({ url: '/doc.json', dom_id: '#app' });",
    body: '<div id="app"></div>',
  },
  {
    name: 'RapiDoc',
    scripts: ['rapidoc/dist/rapidoc-min.js'],
    styles: [],
    init: "const d = document.createElement('rapi-doc'); d.setAttribute('spec-url', '/doc.json'); document.body.append(d);",
    body: '',
  },
  {
    name: 'Redoc',
    scripts: ['redoc/bundles/redoc.standalone.js'],
    styles: [],
    init: "Redoc.init('/doc.json', {}, document.getElementById('app'));",
    body: '<div id="app"></div>',
  },
  {
    name: 'Stoplight Elements',
    scripts: ['@stoplight/elements/web-components.min.js'],
    styles: ['@stoplight/elements/styles.min.css'],
    init: "const e = document.createElement('elements-api'); e.setAttribute('apiDescriptionUrl', '/doc.json'); e.setAttribute('router', 'hash'); document.body.append(e);",
    body: '',
  },
];

const POLICY = `${pageSecurityPolicy()}; script-src 'self'; connect-src 'self'`;

async function main(): Promise<void> {
  const root = join(process.argv[2] ?? '/tmp/refui', 'node_modules');
  const doc = JSON.stringify(
    productDocument(peopleApi(peopleRouter({ db: undefined as never })), 'http://127.0.0.1', '2025-09-30'),
  );
  const axe = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const browser = await chromium.launch({ executablePath: defaultChromiumPath() });
  const rows: string[] = [
    '| UI | gzip (JS + CSS) | CSP violations | rendered | axe serious/critical (light) | dark scheme |',
    '| --- | ---: | ---: | --- | ---: | --- |',
  ];
  try {
    for (const c of CANDIDATES) {
      const files = [...c.scripts, ...c.styles];
      if (!files.every((f) => existsSync(join(root, f)))) {
        rows.push(`| ${c.name} | not installed | | | | |`);
        continue;
      }
      let gzip = 0;
      const served = new Map<string, { type: string; body: Buffer }>();
      for (const f of files) {
        const body = await readFile(join(root, f));
        gzip += gzipSync(body).length;
        served.set(`/${f}`, { type: f.endsWith('.css') ? 'text/css' : 'text/javascript', body });
      }
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API reference</title>${c.styles
        .map((s) => `<link rel="stylesheet" href="/${s}">`)
        .join(
          '',
        )}</head><body>${c.body}${c.scripts.map((s) => `<script src="/${s}"></script>`).join('')}<script src="/init.js"></script></body></html>`;
      served.set('/', { type: 'text/html', body: Buffer.from(page) });
      served.set('/init.js', { type: 'text/javascript', body: Buffer.from(c.init) });
      served.set('/doc.json', { type: 'application/json', body: Buffer.from(doc) });
      const server = createServer((req, res) => {
        const file = served.get(new URL(req.url ?? '/', 'http://x').pathname);
        if (!file) return res.writeHead(404).end();
        res.writeHead(200, { 'Content-Type': file.type, 'Content-Security-Policy': POLICY }).end(file.body);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as { port: number }).port;
      const results: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
        const violations: string[] = [];
        context.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
          if (process.env.SHOW_VIOLATIONS && /Content Security Policy/i.test(m.text()))
            console.error(m.text().slice(0, 300));
        });
        const p = await context.newPage();
        await p.goto(`http://127.0.0.1:${port}/`);
        await p.waitForTimeout(4000);
        // Strings, not functions: tsx would add its __name helper to a function's source.
        const text = await p.evaluate<string>(
          `(function deep(n) { return (n.shadowRoot ? deep(n.shadowRoot) : '') + [...n.childNodes].map((k) => (k.nodeType === 3 ? k.textContent : deep(k))).join(' '); })(document.body)`,
        );
        const rendered = /List lists|lists/i.test(text) && /notes/i.test(text);
        const background = await p.evaluate<string>(
          `(() => { for (const el of [document.body, ...document.body.querySelectorAll('*')].slice(0, 400)) { const bg = getComputedStyle(el).backgroundColor; if (bg && bg !== 'rgba(0, 0, 0, 0)') return bg; } return 'rgb(255, 255, 255)'; })()`,
        );
        if (scheme === 'light') {
          await p.evaluate(`${axe}\n;0`);
          const serious = await p.evaluate<number>(
            `axe.run(document).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').length)`,
          );
          results.push(String(violations.length), rendered ? 'yes' : 'no', String(serious), background);
        } else {
          results.push(background);
        }
        await context.close();
      }
      server.close();
      const [csp, rendered, axeCount, lightBg, darkBg] = results;
      rows.push(
        `| ${c.name} | ${(gzip / 1024).toFixed(0)} kB | ${csp} | ${rendered} | ${axeCount} | ${lightBg === darkBg ? 'no' : `yes (${darkBg})`} |`,
      );
      console.error(`measured ${c.name}`);
    }
  } finally {
    await browser.close();
  }
  console.log(rows.join('\n'));
}

await main();
