import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDSHAKE_COOKIE } from '#host/addons/handshake/index.ts';
import { setAccessMode, type AccessMode } from '#host/oauth/application-access.ts';
import { personId } from '../../support/host.ts';
import type { TestBrowser } from '../../support/oauth-browser.ts';
import { runAuthorization, type PageKind } from '../../support/oauth-flow.ts';
import { Browser } from '#integrator/test/support.ts';
import { loggedIn, organizationId, startAuthorization, testVault } from './fixtures.ts';
import { startHandshakeFixture, type HandshakeFixture } from './handshake-fixture.ts';

let fixture: HandshakeFixture;
let installation: string;
let demo: string;

const ADMINS_ONLY_MESSAGE =
  'Demo Church allows only its organization administrators to connect Messages add-on. ' +
  'An organization administrator of Demo Church can change who may connect it on the Connected applications page of the developer account.';

beforeAll(async () => {
  fixture = await startHandshakeFixture();
  demo = await organizationId(fixture.t.db, 'demo');
  const { browser } = await loggedIn(fixture.t.baseUrl);
  installation = JSON.parse(
    (await browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
  ).data[0].id;
});
afterAll(() => fixture?.close());

async function setMode(mode: AccessMode): Promise<void> {
  await setAccessMode(fixture.t.db, { organizationId: demo, applicationId: fixture.appId, mode });
}

async function setAdministrator(email: string, value: boolean): Promise<void> {
  await fixture.t.db.query('UPDATE people SET site_administrator = $2 WHERE lower(email) = $1', [email, value]);
}

/** What the host holds for the person and the add-on: vault state, host tokens, provider records. */
async function heldFor(email: string): Promise<{ state: string; service: boolean; providerRecords: number }> {
  const id = await personId(fixture.t.db, email);
  const record = await testVault(fixture.t.db).find(installation, id);
  const { rows } = await fixture.t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM oauth_provider_records r JOIN oauth_applications o ON o.client_id = r.payload->>'clientId'
     WHERE o.id = $1 AND r.payload->>'accountId' = $2 AND r.model IN ('Grant', 'AccessToken', 'RefreshToken')`,
    [fixture.appId, id],
  );
  return { state: record?.state ?? 'uninitialized', service: !!record?.service, providerRecords: rows[0]!.n };
}

function expectRestrictedPage(page: { status: number; body: string }): void {
  expect(page.status).toBe(403);
  expect(page.body).toContain('<h1>You cannot connect this add-on</h1>');
  expect(page.body).toContain(`<p>${ADMINS_ONLY_MESSAGE}</p>`);
  expect(page.body).toContain('<p data-error-code="access_restricted">You can close this window.</p>');
  // Starting again cannot help: no restart link.
  expect(page.body).not.toContain(`/addons/installations/${installation}/authorize`);
  expect(page.body).toContain(
    `{"type":"addon-kit:handshake","installationId":"${installation}","outcome":"failed","side":"host","state":"uninitialized","error":"access_restricted"}`,
  );
}

describe('the two-way handshake [access_mode]', () => {
  it('stops at the start with the access_restricted page and never sends the person to /oauth/authorize [admins_only, non-admin]', async () => {
    await setMode('admins_only');
    const { browser } = await loggedIn(fixture.t.baseUrl, 'member@demo.test');
    const start = await startAuthorization(browser, installation);
    expect(start.location).toBeUndefined();
    expectRestrictedPage(start);
    expect(browser.jar.get(HANDSHAKE_COOKIE)).toBeUndefined();
    expect(await heldFor('member@demo.test')).toEqual({ state: 'uninitialized', service: false, providerRecords: 0 });
  });

  it('refuses at /oauth/authorize, then shows access_restricted at advance, for a person demoted after the start [role change]', async () => {
    await setMode('admins_only');
    await setAdministrator('editor@demo.test', true);
    let browser: TestBrowser;
    try {
      ({ browser } = await loggedIn(fixture.t.baseUrl, 'editor@demo.test'));
      const start = await startAuthorization(browser, installation);
      expect(start.status).toBe(303);
      const authorize = new URL(start.location!);
      await setAdministrator('editor@demo.test', false);

      const kinds: PageKind[] = [];
      const completion = await runAuthorization(browser, authorize, { onPage: (_page, kind) => void kinds.push(kind) });
      expect(kinds).toEqual(['refused']);
      expect(completion.origin + completion.pathname).toBe(`${fixture.integrator.url}/addon/complete`);
      expect(Object.fromEntries(completion.searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'Your organization allows only its administrators to connect this application',
        state: authorize.searchParams.get('state'),
        iss: fixture.t.baseUrl,
      });

      // The integrator passes the error on to advance, which explains it.
      const toAdvance = await new Browser().fetch(completion.toString());
      expect(toAdvance.status).toBe(302);
      const advance = await browser.request(toAdvance.headers.get('location')!);
      expectRestrictedPage(advance);
      expect(await heldFor('editor@demo.test')).toEqual({ state: 'uninitialized', service: false, providerRecords: 0 });
    } finally {
      await setAdministrator('editor@demo.test', false);
    }
  });

  it('issues no host grant at advance when the mode changed after the consent [specific_people]', async () => {
    await setMode('admins_only');
    const { browser } = await loggedIn(fixture.t.baseUrl, 'admin@demo.test');
    const start = await startAuthorization(browser, installation);
    const authorize = new URL(start.location!);
    const completion = await runAuthorization(browser, authorize);
    expect(completion.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    // The consent's grant (the code was issued), no tokens yet.
    expect(await heldFor('admin@demo.test')).toEqual({ state: 'uninitialized', service: false, providerRecords: 1 });

    await setMode('specific_people');
    const advance = await browser.request(
      `/addons/authorizations/${fixture.appId}/advance?state=${encodeURIComponent(authorize.searchParams.get('state')!)}`,
    );
    expect(advance.status).toBe(403);
    expect(advance.body).toContain('<p data-error-code="access_restricted">You can close this window.</p>');
    expect(advance.body).toContain(
      'Demo Church allows only the people its organization administrators chose to connect Messages add-on, and you are not one of them.',
    );
    // The host issued no tokens of its own.
    expect(await heldFor('admin@demo.test')).toEqual({ state: 'uninitialized', service: false, providerRecords: 1 });
  });
});
