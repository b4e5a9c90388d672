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

/** The people rows of a List page: id, name and since when. */
function peopleRowsOf(page: PageResponse): { id: string; name: string; since: string }[] {
  return [
    ...page.body.matchAll(
      /<tr data-person-id="(\d+)"><td>([^<]+)<\/td><td><time datetime="([^"]+)">[^<]+<\/time><\/td><\/tr>/g,
    ),
  ].map((m) => ({ id: m[1]!, name: m[2]!, since: m[3]! }));
}

/** A List's people by plain SQL, in the page's order (last name, first name, id). */
async function expectedPeople(listId: string): Promise<{ id: string; name: string; since: string }[]> {
  const { rows } = await t.db.query<{ id: string; name: string; since: Date }>(
    `SELECT p.id::text, p.first_name || ' ' || p.last_name AS name, r.created_at AS since
     FROM list_results r JOIN people p ON p.id = r.person_id WHERE r.list_id = $1 ORDER BY p.last_name, p.first_name, p.id`,
    [listId],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, since: new Date(r.since).toISOString() }));
}

/** The `<dl id="list-run">` facts of a List page as [term, text] pairs. */
function runFactsOf(page: PageResponse): string[][] {
  const dl = /<dl class="ak-facts" id="list-run">(.*?)<\/dl>/.exec(page.body)![1]!;
  return [...dl.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map((m) => [m[1]!, m[2]!.replace(/<[^>]+>/g, '')]);
}

describe('GET /demo/lists/{id}: the List itself', () => {
  const womenOver40 = () => lists.find((l) => l.organization === 'demo' && l.name === 'Women over 40')!;

  it('shows when the List last ran, its rules as the API names them and its first 50 people by name [page 1]', async () => {
    const list = womenOver40();
    const people = await expectedPeople(list.id);
    expect(people.length).toBe(list.total_people);
    expect(people.length).toBeGreaterThan(100);
    const page = await (await loggedIn('member@demo.test')).request(`/demo/lists/${list.id}`);
    expect(page.status).toBe(200);
    const { rows } = await t.db.query<{ refreshed_at: Date }>('SELECT refreshed_at FROM lists WHERE id = $1', [
      list.id,
    ]);
    const ran = rows[0]!.refreshed_at.toISOString();
    expect(runFactsOf(page)).toEqual([
      ['Last run', `${ran.slice(0, 16).replace('T', ' ')} UTC`],
      ['Status', 'complete Its people are those its rules found at the last run.'],
      ['Auto-refresh', 'off: it runs only when asked'],
    ]);
    expect(page.body).toContain(`<time datetime="${ran}">`);
    expect(page.body).toContain('<p>People matching all of these rules (inactive people left out):</p>');
    const rules = [
      ...page.body.matchAll(
        /<tr><td class="ak-mono">([^<]*)<\/td><td class="ak-mono">([^<]*)<\/td><td class="ak-mono">([^<]*)<\/td><\/tr>/g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    expect(rules).toEqual([
      ['gender', 'is', 'F'],
      ['age', 'greater_than_or_equal', '40'],
    ]);
    expect(peopleRowsOf(page)).toEqual(people.slice(0, 50));
    expect(page.body).toContain(`<p id="list-people-range">People 1–50 of ${people.length}</p>`);
    expect(page.body).toContain(`<a rel="next" href="/demo/lists/${list.id}?page=2">Next 50</a>`);
    expect(page.body).not.toContain('rel="prev"');
    expect(page.body).not.toContain('id="list-outdated"');
    expect(page.body).not.toContain('id="list-refresh-due"');
    // The add-ons are in the side column, after the List's content.
    expect(page.body.indexOf('<section class="ak-with-aside-side" aria-label="Add-ons">')).toBeGreaterThan(
      page.body.indexOf('id="list-people-title"'),
    );
  });

  it("shows the last page's people with a link back, and answers 404 past it or for a page that is not a number", async () => {
    const list = womenOver40();
    const people = await expectedPeople(list.id);
    const last = Math.ceil(people.length / 50);
    const browser = await loggedIn('member@demo.test');
    const page = await browser.request(`/demo/lists/${list.id}?page=${last}`);
    expect(page.status).toBe(200);
    expect(peopleRowsOf(page)).toEqual(people.slice((last - 1) * 50));
    expect(page.body).toContain(
      `<p id="list-people-range">People ${(last - 1) * 50 + 1}–${people.length} of ${people.length}</p>`,
    );
    expect(page.body).toContain(
      `<a rel="prev" href="/demo/lists/${list.id}${last > 2 ? `?page=${last - 1}` : ''}">Previous 50</a>`,
    );
    expect(page.body).not.toContain('rel="next"');
    for (const p of [String(last + 1), '0', 'abc', '1.5', '-1']) {
      const missing = await browser.request(`/demo/lists/${list.id}?page=${p}`);
      expect([p, missing.status]).toEqual([p, 404]);
      expect(missing.body).toContain("There is no such page of this List's people.");
    }
  });

  it('says when its people are stale, when its last run failed, and when an auto-refresh is due', async () => {
    const list = womenOver40();
    const browser = await loggedIn('member@demo.test');
    try {
      await t.db.query("UPDATE lists SET status = 'stale' WHERE id = $1", [list.id]);
      const stale = await browser.request(`/demo/lists/${list.id}`);
      expect(stale.body).toMatch(
        /<div class="ak-banner ak-banner--warning" role="status" id="list-outdated"><p class="ak-banner-title">Stale<\/p><p>Its rules or settings changed after it last ran: the people below may no longer match them\. Run it again/,
      );
      expect(runFactsOf(stale)[1]).toEqual([
        'Status',
        'stale Its rules or settings changed after it last ran: the people below may no longer match them.',
      ]);
      await t.db.query("UPDATE lists SET status = 'failed', invalid = true WHERE id = $1", [list.id]);
      const failed = await browser.request(`/demo/lists/${list.id}`);
      expect(failed.body).toContain('<p class="ak-banner-title">The last run failed</p>');
      expect(peopleRowsOf(failed)).toEqual((await expectedPeople(list.id)).slice(0, 50));
      await t.db.query(
        "UPDATE lists SET status = 'complete', invalid = false, auto_refresh = true, auto_refresh_frequency = 'daily', refreshed_at = now() - interval '25 hours' WHERE id = $1",
        [list.id],
      );
      const due = await browser.request(`/demo/lists/${list.id}`);
      expect(due.body).not.toContain('id="list-outdated"');
      expect(due.body).toContain(
        '<div class="ak-banner ak-banner--info" role="status" id="list-refresh-due"><p>Due for its daily refresh: the List scheduler runs it on its next pass.</p></div>',
      );
      expect(runFactsOf(due)[2]).toEqual(['Auto-refresh', 'daily']);
      await t.db.query("UPDATE lists SET refreshed_at = now() - interval '23 hours' WHERE id = $1", [list.id]);
      expect((await browser.request(`/demo/lists/${list.id}`)).body).not.toContain('id="list-refresh-due"');
    } finally {
      await t.db.query(
        "UPDATE lists SET status = 'complete', invalid = false, auto_refresh = false, refreshed_at = now() WHERE id = $1",
        [list.id],
      );
    }
  });

  it('shows a List that never ran as such: no last run, its rules, no people [other organization]', async () => {
    const own = lists.find((l) => l.organization === 'other' && l.name === 'Visitors or participants')!;
    const page = await (await loggedIn('admin@other.test')).request(`/demo/lists/${own.id}`);
    expect(page.status).toBe(200);
    expect(runFactsOf(page)).toEqual([
      ['Last run', 'Never'],
      ['Status', 'never_run It has not run yet, so it has no people.'],
      ['Auto-refresh', 'off: it runs only when asked'],
    ]);
    expect(page.body).toContain('<p>People matching any of these rules (inactive people left out):</p>');
    expect(page.body).toContain('<p class="ak-empty">This List has not run yet.</p>');
    expect(peopleRowsOf(page)).toEqual([]);
    expect(page.body).not.toContain('id="list-people-range"');
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
