/**
 * The guides at `/docs/guides/{slug}`: each one 200 with its title, the reference and the guides in its navigation,
 * under the docs' CSP; its words exactly those of its section of the README (or docs/*.md), cut out here by a
 * reading of the Markdown of its own, so a guide cannot drift from its source; and the rendering's rules on a
 * Markdown of the test's own: raw HTML shown as text, links resolved to guides or dropped, no script links, images
 * as their words.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_SECURITY_POLICY } from '#host/docs/docs-router.ts';
import { GUIDE_SOURCES } from '#host/docs/guide-sources.ts';
import { loadGuides } from '#host/docs/guides.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

const ROOT = join(import.meta.dirname, '../../..');

let t: HttpTestHost;
beforeAll(async () => {
  t = await startHttpTestHost();
});
afterAll(() => t?.close());

/** The section under `heading` (down to the next heading of its level or above), read line by line. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '') === heading);
  expect(start, `heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const level = /^#+/.exec(lines[start]!)![0].length;
  let inFence = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) inFence = !inFence;
    const m = /^(#+) /.exec(lines[i]!);
    if (!inFence && m && m[1]!.length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

/** The words a reader sees in a Markdown text: its syntax removed, whitespace collapsed. */
function markdownWords(markdown: string): string {
  let inFence = false;
  const lines = markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      inFence = !inFence;
      return [];
    }
    if (inFence) return [line];
    if (/^\|?\s*-{3,}/.test(line)) return [];
    return [
      line
        .replace(/^#+ /, '')
        .replace(/^\s*(?:[-*]|\d+\.) /, '')
        .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/\*\*/g, '')
        .replace(/`/g, '')
        .split('\\|')
        .map((part) => part.replace(/\|/g, ' '))
        .join('|'),
    ];
  });
  return lines.join('\n').replace(/\s+/g, ' ').trim();
}

/** The words of an HTML fragment: tags removed, entities decoded, whitespace collapsed. */
function htmlWords(html: string): string {
  return html
    .replace(/<\/?(?:code|a|strong|em)(?: [^>]*)?>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The guide's article in a page. */
function article(html: string): string {
  const match = /<article class="ak-guide">([\s\S]*)<\/article>/.exec(html);
  expect(match, 'the page has the guide').not.toBeNull();
  return match![1]!;
}

describe('GET /docs/guides/{slug}', () => {
  it('serves every guide: 200, its title, the navigation, the docs policy', async () => {
    expect(GUIDE_SOURCES.map((g) => g.slug)).toEqual([
      'getting-started',
      'oauth',
      'build-an-addon',
      'build-an-integrator',
      'limits-and-errors',
    ]);
    for (const guide of GUIDE_SOURCES) {
      const res = await fetch(`${t.baseUrl}/docs/guides/${guide.slug}`);
      expect(res.status, guide.slug).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(DOCS_SECURITY_POLICY);
      const html = await res.text();
      expect(html).toContain(`<title>${guide.title} · addon-kit</title>`);
      expect(html).toContain(`<a href="/docs/guides/${guide.slug}" aria-current="page">`);
      expect(html).toContain('<a href="/docs?api=current">');
      expect(html).not.toContain('<script');
      // The guide starts with its section's heading, as the page's one h1.
      expect(article(html)).toMatch(new RegExp(`^<h1 id="[a-z0-9-]+">`));
      expect(html.match(/<h1[ >]/g)).toHaveLength(1);
    }
  });

  it('says exactly what its section of the source says (the guide cannot drift from the README)', async () => {
    for (const guide of GUIDE_SOURCES) {
      const source = section(await readFile(join(ROOT, guide.file), 'utf8'), guide.heading);
      const html = await (await fetch(`${t.baseUrl}/docs/guides/${guide.slug}`)).text();
      expect(htmlWords(article(html)), guide.slug).toBe(markdownWords(source));
    }
  });

  it('links only to the web, to its own headings, or to other guides (files of the repository are not served)', async () => {
    for (const guide of GUIDE_SOURCES) {
      const html = article(await (await fetch(`${t.baseUrl}/docs/guides/${guide.slug}`)).text());
      const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
      for (const [, href] of html.matchAll(/<a href="([^"]*)"/g)) {
        if (href!.startsWith('#')) expect(ids, `${guide.slug}: ${href}`).toContain(href!.slice(1));
        else expect(href, guide.slug).toMatch(/^(https:\/\/|\/docs\/guides\/[a-z-]+(#[a-z0-9-]+)?$)/);
      }
    }
    // The integrator guide's link to the template's README keeps its words, not its target.
    const integrator = article(await (await fetch(`${t.baseUrl}/docs/guides/build-an-integrator`)).text());
    expect(integrator).not.toContain('href="integrator-template');
  });

  it('sends /docs/guides to the first guide and answers an unknown one with a 404 page', async () => {
    const index = await fetch(`${t.baseUrl}/docs/guides`, { redirect: 'manual' });
    expect(index.status).toBe(302);
    expect(index.headers.get('location')).toBe('/docs/guides/getting-started');
    for (const slug of ['nope', '..%2FREADME.md', '%00']) {
      const res = await fetch(`${t.baseUrl}/docs/guides/${slug}`);
      expect(res.status, slug).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      expect(html).toContain('Guide not found');
      expect(html).not.toMatch(/at .*\.ts:\d+/);
    }
    // A malformed percent-escape is the client's mistake, never a 500.
    const malformed = await fetch(`${t.baseUrl}/docs/guides/%E0%A4%A`);
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).not.toMatch(/URIError|at .*\.ts:\d+/);
  });

  it('links the guides from the reference', async () => {
    const html = await (await fetch(`${t.baseUrl}/docs?api=people`)).text();
    for (const guide of GUIDE_SOURCES)
      expect(html).toContain(`<a href="/docs/guides/${guide.slug}">${guide.title}</a>`);
  });
});

describe('loadGuides on a Markdown of its own', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'guides-'));
    await mkdir(join(root, 'docs'));
    await writeFile(
      join(root, 'README.md'),
      [
        '# Project',
        '## First',
        'See [the second](#second-one), [its detail](#the-detail), [mine](#mine), [a file](host/README.md),',
        '[the other doc](docs/other.md#other), [the web](https://example.com/x) and [bad](javascript:alert(1)).',
        '<script>alert(1)</script> <b onclick="x()">bold</b> ![a picture](https://example.com/p.png)',
        '### Mine',
        '```html',
        '<img src=x onerror=alert(1)>',
        '```',
        '## Second one',
        '### The detail',
        'Back to [first](#first).',
        '# Next',
        'Not in a guide.',
      ].join('\n'),
    );
    await writeFile(join(root, 'docs/other.md'), '# Other\n\nBack to [the README](../README.md#first).\n');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('has no guides without a repository (a host installed from its package)', () => {
    expect(loadGuides(GUIDE_SOURCES, null)).toEqual([]);
  });

  it('renders raw HTML as text, resolves links between guides, drops the others', () => {
    const guides = loadGuides(
      [
        { slug: 'first', title: 'First', file: 'README.md', heading: 'First' },
        { slug: 'second', title: 'Second', file: 'README.md', heading: 'Second one' },
        { slug: 'other', title: 'Other', file: 'docs/other.md', heading: 'Other' },
        { slug: 'missing', title: 'Missing', file: 'README.md', heading: 'No such heading' },
        { slug: 'no-file', title: 'No file', file: 'docs/none.md', heading: 'None' },
      ],
      `${root}/`,
    );
    expect(guides.map((g) => g.slug)).toEqual(['first', 'second', 'other']);
    const [first, second, other] = guides.map((g) => g.html);
    expect(first).toBe(
      [
        '<h1 id="first">First</h1>',
        '<p>See <a href="/docs/guides/second">the second</a>, <a href="/docs/guides/second#the-detail">its detail</a>, ' +
          '<a href="#mine">mine</a>, a file,',
        '<a href="/docs/guides/other">the other doc</a>, <a href="https://example.com/x">the web</a> and [bad](javascript:alert(1)).',
        '&lt;script&gt;alert(1)&lt;/script&gt; &lt;b onclick=&quot;x()&quot;&gt;bold&lt;/b&gt; a picture</p>',
        '<h2 id="mine">Mine</h2>',
        '<pre tabindex="0"><code class="language-html">&lt;img src=x onerror=alert(1)&gt;',
        '</code></pre>',
        '',
      ].join('\n'),
    );
    expect(second).toBe(
      '<h1 id="second-one">Second one</h1>\n<h2 id="the-detail">The detail</h2>\n<p>Back to <a href="/docs/guides/first">first</a>.</p>\n',
    );
    expect(other).toBe('<h1 id="other">Other</h1>\n<p>Back to <a href="/docs/guides/first">the README</a>.</p>\n');
  });
});
