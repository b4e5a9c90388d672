import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPONENT_STYLESHEET_PATH } from '@addon-kit/sdk/server';
import { DEFAULT_PAGE_ASSET_SOURCES, loadPageAssets, pageAssets, pageAssetsRouter } from '#host/pages/page-assets.ts';
import { createTestHost, type TestHost } from '../../support/host.ts';

let t: TestHost;
const hostCss = fileURLToPath(new URL('../../../host/pages/assets/host.css', import.meta.url));
const faviconSvg = fileURLToPath(new URL('../../../host/pages/assets/favicon.svg', import.meta.url));
const PAGE_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

beforeAll(async () => {
  t = await createTestHost({ config: { platformName: 'Parish Hub' } });
});
afterAll(() => t.close());

describe('GET /assets/host-{hash}.css', () => {
  it("serves the design system followed by the add-on components' styles, cached for good under its content hash", async () => {
    const expected = `${await readFile(hostCss, 'utf8')}\n${await readFile(COMPONENT_STYLESHEET_PATH, 'utf8')}`;
    const { path } = pageAssets().stylesheet;
    expect(path).toBe(`/assets/host-${createHash('sha256').update(expected).digest('hex').slice(0, 12)}.css`);
    const res = await t.api().get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(expected);
    // Tokens for both schemes, and the components reading them.
    expect(res.text).toContain('--ak-color-primary: #3a4fd6;');
    expect(res.text).toContain('@media (prefers-color-scheme: dark)');
    expect(res.text).toContain('.addon-kit-button-destructive {');
  });

  it('answers 404 for a stylesheet of another hash [stale link]', async () => {
    const res = await t.api().get('/assets/host-000000000000.css');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('GET /favicon.ico', () => {
  it('answers the SVG favicon for a day (no 404), and the hashed favicon for good', async () => {
    const svg = await readFile(faviconSvg);
    const ico = await t.api().get('/favicon.ico').buffer(true);
    expect([ico.status, ico.headers['content-type'], ico.headers['cache-control']]).toEqual([
      200,
      'image/svg+xml',
      'public, max-age=86400',
    ]);
    expect(Buffer.compare(ico.body as Buffer, svg)).toBe(0);
    const hashed = await t.api().get(pageAssets().favicon.path).buffer(true);
    expect([hashed.status, hashed.headers['cache-control']]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect(pageAssets().favicon.path).toMatch(/^\/assets\/favicon-[0-9a-f]{12}\.svg$/);
  });
});

describe('GET /login (the page frame)', () => {
  it('links the stylesheet and the favicon, names the platform, and allows only its own styles and images [CSP]', async () => {
    const res = await t.api().get('/login');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PAGE_POLICY);
    expect(res.text).toContain(`<link rel="stylesheet" href="${pageAssets().stylesheet.path}"/>`);
    expect(res.text).toContain(`<link rel="icon" type="image/svg+xml" href="${pageAssets().favicon.path}"/>`);
    expect(res.text).toContain('<title>Log in · Parish Hub</title>');
    expect(res.text).toContain('<span>Parish Hub</span>');
    // Nobody is signed in: no one is named in the header.
    expect(res.text).not.toContain('data-viewer');
    expect(res.text).not.toMatch(/<style|style="/);
  });
});

describe('loadPageAssets()', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'addon-kit-assets-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves the assets from an install location under dot-folders [~/.npm/_npx]', async () => {
    const install = join(dir, '.npm', '_npx', 'f00', 'node_modules', 'addon-kit', '.assets');
    await mkdir(install, { recursive: true });
    const sources = {
      stylesheets: [join(install, 'host.css'), join(install, 'components.css')],
      favicon: join(install, 'favicon.svg'),
    };
    await copyFile(hostCss, sources.stylesheets[0]!);
    await copyFile(COMPONENT_STYLESHEET_PATH, sources.stylesheets[1]!);
    await copyFile(faviconSvg, sources.favicon);
    const assets = loadPageAssets(sources);
    expect(assets.stylesheet.path).toBe(pageAssets().stylesheet.path);
    const app = express().use(pageAssetsRouter(assets));
    const css = await supertest(app).get(assets.stylesheet.path);
    expect([css.status, css.text]).toEqual([200, pageAssets().stylesheet.body.toString('utf8')]);
    expect((await supertest(app).get('/favicon.ico')).status).toBe(200);
  });

  it('gives a changed stylesheet a new path [cache busting]', async () => {
    const changed = join(dir, 'changed.css');
    await writeFile(changed, `${await readFile(hostCss, 'utf8')}\n.x{}`);
    const assets = loadPageAssets({ ...DEFAULT_PAGE_ASSET_SOURCES, stylesheets: [changed, COMPONENT_STYLESHEET_PATH] });
    expect(assets.stylesheet.path).not.toBe(pageAssets().stylesheet.path);
    expect(assets.stylesheet.path).toMatch(/^\/assets\/host-[0-9a-f]{12}\.css$/);
  });
});
