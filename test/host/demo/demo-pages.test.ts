import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFramePolicy } from '#sdk/server/sandbox-router.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { runDemoLists } from '#host/demo/demo-lists.ts';
import { createSandboxApp } from '#host/addons/sandbox/sandbox-origin.ts';
import { ensureSampleAddon } from '#host/demo/sample-addon.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

const SANDBOX = 'http://127.0.0.1:4001';
const BUNDLE = 'self.sampleAddon = true;';
const BUNDLE_SHA = createHash('sha256').update(BUNDLE).digest('hex');
let t: HttpTestHost;
let tmp: string;
/** Under a dot-folder, as in the default data directory `./.addon-kit`. */
let bundleDir: string;
let lists: { id: string; name: string; organization: string; total_people: number }[];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'addon-kit-demo-pages-'));
  bundleDir = join(tmp, '.addon-kit', 'addon-sdk');
  await mkdir(bundleDir, { recursive: true });
  await writeFile(join(bundleDir, 'host.js'), 'export const mountAddon = () => {};');
  await writeFile(join(bundleDir, 'sandbox-bootstrap.js'), '/* bootstrap */');
  t = await startHttpTestHost({
    demo: true,
    config: { sandboxUrl: SANDBOX, addonSdkDir: bundleDir, addonSweepIntervalSeconds: 0 },
  });
  await ensureSampleAddon(t.db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    integratorUrl: 'http://127.0.0.1:4100',
    bundle: BUNDLE,
    env: {},
  });
  await runDemoLists(t.db, new Date());
  lists = (
    await t.db.query<{ id: string; name: string; organization: string; total_people: number }>(
      'SELECT l.id::text, l.name, o.slug AS organization, l.total_people FROM lists l JOIN organizations o ON o.id = l.organization_id ORDER BY l.name, l.id',
    )
  ).rows;
});
afterAll(async () => {
  await t?.close();
  await rm(tmp, { recursive: true, force: true });
});

async function loggedIn(email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}

function mountsOf(page: PageResponse): {
  csrfToken: string;
  mounts: { element: string; options: Record<string, unknown> }[];
} {
  return JSON.parse(/<script type="application\/json" id="addon-kit-mounts">(.*?)<\/script>/.exec(page.body)![1]!);
}

const policy = (nonce: string, frames: string, images = "'self'") =>
  `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self'; connect-src 'self'; frame-src ${frames}; img-src ${images}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

describe('GET /demo/lists', () => {
  it('redirects to the login page when nobody is logged in', async () => {
    const res = await new TestBrowser(t.baseUrl).request('/demo/lists');
    expect([res.status, res.location]).toEqual([303, `${t.baseUrl}/login?return_to=%2Fdemo%2Flists`]);
  });

  it("lists the organization's Lists with their number of people, and no other organization's", async () => {
    const page = await (await loggedIn('member@demo.test')).request('/demo/lists');
    expect(page.status).toBe(200);
    const rows = [
      ...page.body.matchAll(
        /<a href="\/demo\/lists\/(\d+)">([^<]+)<\/a><\/td><td class="ak-subdued">[^<]*<\/td><td class="ak-num">(\d+)<\/td>/g,
      ),
    ].map((m) => ({ id: m[1], name: m[2], total_people: Number(m[3]) }));
    expect(rows).toEqual(
      lists.filter((l) => l.organization === 'demo').map(({ id, name, total_people }) => ({ id, name, total_people })),
    );
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'self' 'nonce-[A-Za-z0-9+/=]+'; /,
    );
  });

  it('refuses a person without a People role [403]', async () => {
    const browser = await loggedIn('editor@demo.test');
    await t.db.query("DELETE FROM person_product_roles WHERE person_id = $1 AND product = 'people'", [
      await personId(t.db, 'editor@demo.test'),
    ]);
    const page = await browser.request('/demo/lists');
    expect(page.status).toBe(403);
    expect(page.body).toContain('You have no access to People.');
  });
});

describe('GET /demo/lists/{id}', () => {
  it('shows the List and mounts the sample add-on from the sandbox origin, with a policy framing only that origin', async () => {
    const list = lists.find((l) => l.organization === 'demo' && l.total_people > 1)!;
    const page = await (await loggedIn('admin@demo.test')).request(`/demo/lists/${list.id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<h1>${list.name}</h1>`);
    expect(page.body).toContain(`<strong id="list-people-count">${list.total_people} people</strong>`);
    const nonce = /<script type="module" nonce="([^"]+)">/.exec(page.body)![1]!;
    expect(page.headers.get('content-security-policy')).toBe(policy(nonce, SANDBOX));
    const { rows } = await t.db.query<{ id: string }>('SELECT id::text FROM addon_installations');
    const setup = mountsOf(page);
    expect(setup.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setup.mounts).toEqual([
      {
        element: `addon-${rows[0]!.id}`,
        options: {
          installationId: rows[0]!.id,
          extension: 'people.list.send_message',
          props: { listId: list.id, list_id: list.id },
          environment: 'development',
          sandboxUrl: `${SANDBOX}/frame.html`,
          addonUrl: `${SANDBOX}/addons/${BUNDLE_SHA}.js`,
          uiOrigins: [],
        },
      },
    ]);
    expect(page.body).toContain(`<div id="addon-${rows[0]!.id}"></div>`);
  });

  it('allows images from the declared ui_origins of the mounted add-ons only, and passes them to the renderer [img-src]', async () => {
    const list = lists.find((l) => l.organization === 'demo')!;
    const origins = ['https://cdn.example', 'http://localhost:4100'];
    await t.db.query('UPDATE addon_versions SET ui_origins = $1', [origins]);
    try {
      const page = await (await loggedIn('admin@demo.test')).request(`/demo/lists/${list.id}`);
      const nonce = /<script type="module" nonce="([^"]+)">/.exec(page.body)![1]!;
      expect(page.headers.get('content-security-policy')).toBe(
        policy(nonce, SANDBOX, "'self' https://cdn.example http://localhost:4100"),
      );
      expect(mountsOf(page).mounts.map((m) => m.options.uiOrigins)).toEqual([origins]);
    } finally {
      await t.db.query("UPDATE addon_versions SET ui_origins = '{}'");
    }
  });

  it("answers 404 for another organization's List, an unknown one and a malformed id", async () => {
    const browser = await loggedIn('admin@demo.test');
    const foreign = lists.find((l) => l.organization === 'other')!;
    for (const id of [foreign.id, '999999', 'abc', '0']) {
      const page = await browser.request(`/demo/lists/${id}`);
      expect([id, page.status]).toEqual([id, 404]);
      expect(page.body).toContain('There is no such List.');
    }
  });

  it("mounts nothing for an organization that cannot see the add-on's development version [other organization]", async () => {
    const own = lists.find((l) => l.organization === 'other')!;
    const page = await (await loggedIn('admin@other.test')).request(`/demo/lists/${own.id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<p class="ak-empty">No add-on is installed for people.list.send_message.</p>');
    expect(mountsOf(page).mounts).toEqual([]);
    expect(page.body).not.toContain('<script type="module"');
  });
});

describe('GET /assets/addon-sdk/host.js', () => {
  it('serves the built embedder without a login, from a bundle directory under a dot-folder [.addon-kit]', async () => {
    const res = await fetch(`${t.baseUrl}/assets/addon-sdk/host.js`);
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'export const mountAddon = () => {};',
    ]);
  });
});

describe('createSandboxApp()', () => {
  const sandbox = () =>
    supertest(createSandboxApp({ db: t.db, hostBaseUrl: t.baseUrl, sandboxUrl: SANDBOX, bundleDir }));

  it('serves a registered bundle by its SHA-256 without any cookie', async () => {
    const res = await sandbox().get(`/addons/${BUNDLE_SHA}.js`);
    expect([res.status, res.headers['content-type'], res.text]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      BUNDLE,
    ]);
  });

  it('answers 404 for an unknown hash and for names that are not hashes', async () => {
    for (const path of [
      `/addons/${'0'.repeat(64)}.js`,
      '/addons/send-message.js',
      `/addons/${BUNDLE_SHA.toUpperCase()}.js`,
      '/addons/1.js',
    ]) {
      const res = await sandbox().get(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  it('serves the sandbox bootstrap from a bundle directory under a dot-folder [.addon-kit]', async () => {
    const res = await sandbox().get('/sandbox-bootstrap.js');
    expect([res.status, res.headers['content-type'], res.text]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      '/* bootstrap */',
    ]);
  });

  it('serves the frame with the sandbox policy naming the host as the only ancestor', async () => {
    const res = await sandbox().get('/frame.html');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(sandboxFramePolicy(SANDBOX, [t.baseUrl]));
  });
});
