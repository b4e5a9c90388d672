/**
 * A development integrator serves any add-on of its host: `/addon/complete/{oauth_application_id}` names the host
 * OAuth application, sends the person on to that application's advance step, and lets the same browser session's
 * authorize request redirect to exactly that application's callback — nowhere else, and not without the completion.
 * In production an application id is required and only it is served.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIntegratorConfig } from '../config.ts';
import type { Database } from '../store/database.ts';
import {
  authorizeInBrowser,
  Browser,
  createIntegratorTestDatabase,
  HOST_BASE_URL,
  startTestIntegrator,
  type TestIntegrator,
} from './support.ts';

let store: { db: Database; drop(): Promise<void> };
let any: TestIntegrator;

const callback = (id: number) => `${HOST_BASE_URL}/addons/authorizations/${id}`;

function authorizeUrl(redirectUri: string, state = 'st'): string {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return `${any.url}/oauth/authorize?${new URLSearchParams({
    client_id: 'addon-kit-host',
    redirect_uri: redirectUri,
    response_type: 'code',
    state,
    scope: 'messages',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;
}

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  // The defaults of a scaffolded integrator in development: the host as the one client, no application id.
  any = await startTestIntegrator(store.db, { oauthApplicationId: undefined, clients: undefined });
});
afterAll(async () => {
  await any.close();
  await store.drop();
});

describe('resolveIntegratorConfig() without an application id', () => {
  it('registers the host with no fixed callback in development [defaults]', () => {
    expect(any.config.oauthApplicationId).toBeUndefined();
    expect(any.config.clients).toEqual([expect.objectContaining({ client_id: 'addon-kit-host', redirect_uris: [] })]);
    expect(any.config.port).toBe(4200);
  });

  it('requires it in production [production]', () => {
    expect(() =>
      resolveIntegratorConfig(
        { environment: 'production', secret: 'x'.repeat(40), users: [] },
        {
          INTEGRATOR_CLIENT_SECRET: 'a-production-secret-of-length',
        },
      ),
    ).toThrow(
      expect.objectContaining({
        problems: [
          'oauthApplicationId: is required in production (INTEGRATOR_OAUTH_APPLICATION_ID)',
          'clients.0.redirect_uris: must not be empty in production',
        ],
      }),
    );
  });
});

describe('GET /addon/complete/{oauth_application_id}', () => {
  it("sends the person to that application's advance step with the state unchanged", async () => {
    const res = await fetch(`${any.url}/addon/complete/23?code=c&state=s%2F1`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${callback(23)}/advance?state=s%2F1`);
  });

  it('answers 404 with a page for a path that is no application id, and at /addon/complete without one', async () => {
    for (const path of ['/addon/complete/0?code=c&state=s', '/addon/complete/abc?code=c&state=s']) {
      const res = await fetch(`${any.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('This integrator does not serve that add-on.');
    }
    const bare = await fetch(`${any.url}/addon/complete?code=c&state=s`, { redirect: 'manual' });
    expect(bare.status).toBe(404);
    expect(await bare.text()).toContain(`${any.url}/addon/complete/{oauth_application_id}`);
  });
});

describe('GET /oauth/authorize after a completion', () => {
  it('accepts exactly the callback of the applications this session completed, and issues a code for it', async () => {
    const browser = new Browser();
    const refused = await browser.fetch(authorizeUrl(callback(31)));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Invalid redirect URI');

    await browser.fetch(`${any.url}/addon/complete/31?code=c&state=s`);
    const back = await authorizeInBrowser(browser, authorizeUrl(callback(31), 'state-31'));
    expect(`${back.origin}${back.pathname}`).toBe(callback(31));
    expect(back.searchParams.get('state')).toBe('state-31');
    expect(back.searchParams.get('code')).toEqual(expect.any(String));

    // Another application, a look-alike and another browser: not registered for this session.
    for (const uri of [
      callback(32),
      `${callback(31)}/`,
      `${callback(31)}?x=1`,
      'http://evil.test/addons/authorizations/31',
    ]) {
      const res = await browser.fetch(authorizeUrl(uri));
      expect(res.status).toBe(400);
    }
    expect((await new Browser().fetch(authorizeUrl(callback(31)))).status).toBe(400);
  });
});

describe('production', () => {
  it('serves only its own application at /addon/complete/{id}', async () => {
    const db = await createIntegratorTestDatabase();
    const production = await startTestIntegrator(db.db, {
      environment: 'production',
      secret: 'production-secret-production-secret-0123',
      users: [],
    });
    try {
      const own = await fetch(`${production.url}/addon/complete/17?code=c&state=s`, { redirect: 'manual' });
      expect(own.status).toBe(302);
      const other = await fetch(`${production.url}/addon/complete/18?code=c&state=s`, { redirect: 'manual' });
      expect(other.status).toBe(404);
    } finally {
      await production.close();
      await db.drop();
    }
  });
});
