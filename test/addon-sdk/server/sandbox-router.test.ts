import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedderRouter, createSandboxRouter, readComponentStylesheet } from '@addon-kit/sdk/server';

let tmp: string;
/** The bundles, under a dot-folder as in the default data directory `./.addon-kit`. */
let dir: string;
let app: express.Express;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'sandbox-router-'));
  dir = join(tmp, '.addon-kit', 'addon-sdk');
  await mkdir(join(dir, 'addons'), { recursive: true });
  await writeFile(join(dir, 'sandbox-bootstrap.js'), 'bootstrap();');
  await writeFile(join(dir, 'host.js'), 'export {};');
  await writeFile(join(dir, 'addons', 'sample.js'), 'sample();');
  app = express();
  app.use(
    '/sandbox',
    createSandboxRouter({
      hostOrigins: ['http://localhost:4000'],
      sandboxOrigin: 'http://localhost:4001',
      bundleDir: dir,
      addons: { sample: join(dir, 'addons', 'sample.js') },
    }),
  );
  app.use('/assets/addon-sdk', createEmbedderRouter({ bundleDir: dir }));
  app.use('/unbuilt', createEmbedderRouter({ bundleDir: join(tmp, '.addon-kit', 'not-built') }));
  app.use(
    '/cdn',
    createSandboxRouter({
      hostOrigins: ['http://localhost:4000', 'https://host.example'],
      sandboxOrigin: 'https://sandbox.example',
      scriptOrigins: ['https://cdn.example'],
      bundleDir: dir,
      addons: (name) => Promise.resolve(name === '12' ? { source: 'stored();' } : undefined),
    }),
  );
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('GET /frame.html (sandbox router)', () => {
  it('serves the frame with a CSP that blocks the network and sandboxes the document', async () => {
    const res = await supertest(app).get('/sandbox/frame.html').expect(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src http://localhost:4001; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors http://localhost:4000; sandbox allow-scripts",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).toBe(
      '<!doctype html><html><head><meta charset="utf-8"><title>add-on sandbox</title></head><body><script src="sandbox-bootstrap.js"></script></body></html>',
    );
  });
});

describe('GET /frame.html (sandbox router with script origins)', () => {
  it('adds the script origins to script-src and lists every host in frame-ancestors', async () => {
    const res = await supertest(app).get('/cdn/frame.html').expect(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src https://sandbox.example https://cdn.example; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors http://localhost:4000 https://host.example; sandbox allow-scripts",
    );
  });
});

describe('GET /addons/:file (sandbox router)', () => {
  it('serves a script source returned by the lookup, and 404 when it returns nothing [lookup]', async () => {
    expect((await supertest(app).get('/cdn/addons/12.js').expect(200)).text).toBe('stored();');
    expect((await supertest(app).get('/cdn/addons/13.js').expect(404)).text).toBe('Not found');
  });

  it('serves a configured add-on as JavaScript', async () => {
    const res = await supertest(app).get('/sandbox/addons/sample.js').expect(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text).toBe('sample();');
  });

  it.each([
    '/sandbox/addons/other.js',
    '/sandbox/addons/sample.mjs',
    '/sandbox/addons/..%2Fsandbox-bootstrap.js',
    '/sandbox/addons/constructor.js',
  ])('answers 404 for %s [unknown]', async (path) => {
    const res = await supertest(app).get(path).expect(404);
    expect(res.text).toBe('Not found');
  });

  it('serves the bootstrap from a bundle directory under a dot-folder [.addon-kit]', async () => {
    expect((await supertest(app).get('/sandbox/sandbox-bootstrap.js').expect(200)).text).toBe('bootstrap();');
  });
});

describe('GET /host.js (embedder router)', () => {
  it('serves the host embedder bundle from a bundle directory under a dot-folder [.addon-kit]', async () => {
    const res = await supertest(app).get('/assets/addon-sdk/host.js').expect(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text).toBe('export {};');
    expect([res.headers['x-content-type-options'], res.headers['cache-control']]).toEqual(['nosniff', 'no-cache']);
  });

  it('answers 404 in plain text when the bundle was not built [missing]', async () => {
    const res = await supertest(app).get('/unbuilt/host.js').expect(404);
    expect([res.headers['content-type'], res.text]).toEqual(['text/plain; charset=utf-8', 'Not found']);
  });
});

describe('GET /components.css (embedder router)', () => {
  it("serves the add-on components' stylesheet, which reads the page's design tokens", async () => {
    const res = await supertest(app).get('/assets/addon-sdk/components.css').expect(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect([res.headers['x-content-type-options'], res.headers['cache-control']]).toEqual(['nosniff', 'no-cache']);
    expect(res.text).toBe(readComponentStylesheet());
    expect(res.text).toContain('.addon-kit-button-destructive {\n  border-color: var(--ak-color-critical);');
    // Tokens only: no colour of its own.
    expect(res.text).not.toMatch(/#[0-9a-f]{3,6}\b/i);
  });
});
