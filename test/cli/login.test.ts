/**
 * `addon-kit login` / `logout`: the CLI as an OAuth client of its host — PKCE S256 with a loopback redirect on a port
 * chosen at run time, the sign-in answered in Chromium, the tokens kept per host in the config directory (0600),
 * refreshed when expired, accepted by the add-on registry with the `addons` scope, revoked by `logout`.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryAuth } from '#host/cli/auth/registry-auth.ts';
import { loginCommand, logoutCommand } from '#host/cli/login-command.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { launchBrowser } from '../support/browser.ts';
import { answerCliSignIn, SIGN_IN_LINE } from '../support/cli-sign-in.ts';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../support/constants.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { organizationId, testBox } from '../host/addons/fixtures.ts';

let t: HttpTestHost;
let browser: Browser;
let configHome: string;
let env: NodeJS.ProcessEnv;

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) }, out, err };
}

async function eventually<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const credentialsPath = () => join(configHome, 'addon-kit', 'credentials.json');
const stored = async () =>
  (JSON.parse(await readFile(credentialsPath(), 'utf8')) as { hosts: Record<string, Record<string, unknown>> }).hosts;

/** Creates an add-on application through the registry with `authorization`; the response. */
const createApplication = (authorization: string, name: string) =>
  fetch(`${t.baseUrl}/addons/v1/applications`, {
    method: 'POST',
    headers: { authorization, 'user-agent': TEST_USER_AGENT, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      scopes: ['people'],
      redirect_uris: ['http://localhost:4100/addon/complete/${ADDON_OAUTH_APPLICATION_ID}'],
    }),
  });

beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  configHome = await mkdtemp(join(tmpdir(), 'addon-kit-config-'));
  env = { XDG_CONFIG_HOME: configHome };
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

describe('addon-kit login', () => {
  it('signs in through the browser (PKCE S256, loopback redirect on a port chosen now) and keeps the tokens for the owner only', async () => {
    const c = captureIo();
    const login = loginCommand(['--host', t.baseUrl, '--no-browser'], c.io, env);
    const url = new URL(
      await eventually(() => c.err.map((l) => SIGN_IN_LINE.exec(l)?.[1]).find(Boolean), 'the sign-in URL'),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe('addon-kit-cli');
    expect(url.searchParams.get('scope')).toBe('openid addons');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('redirect_uri')).not.toBe('http://127.0.0.1/callback');

    const page = await browser.newPage();
    await answerCliSignIn(page, url.href, { email: 'admin@demo.test', password: TEST_PASSWORD });
    await page.close();
    expect(await login).toBe(0);
    expect(c.out).toEqual([`signed in to ${t.baseUrl}; the tokens are in ${credentialsPath()}`]);
    expect(c.err.at(-1)).toMatch(new RegExp(`^addon-kit: signed in to ${t.baseUrl} as .+ <admin@demo\\.test>$`));

    expect((await stat(credentialsPath())).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, 'addon-kit'))).mode & 0o777).toBe(0o700);
    const mine = (await stored())[t.baseUrl]!;
    expect(mine).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_at: expect.any(Number),
      email: 'admin@demo.test',
      name: expect.any(String),
    });
    expect(Math.abs((mine.expires_at as number) - (Date.now() + 7200_000))).toBeLessThan(60_000);

    // The add-on registry takes the CLI's token (scope addons) as it takes a personal access token.
    const created = await createApplication(`Bearer ${String(mine.access_token)}`, 'Signed-in add-on');
    expect(created.status).toBe(201);
    const body = (await created.json()) as { data: { id: string; attributes: { redirect_uris: string[] } } };
    expect(body.data.attributes.redirect_uris).toEqual([`http://localhost:4100/addon/complete/${body.data.id}`]);
  });

  it('refreshes an expired access token with the rotated refresh token, and stores the new pair', async () => {
    const before = (await stored())[t.baseUrl]!;
    await writeFile(
      credentialsPath(),
      JSON.stringify({ hosts: { [t.baseUrl]: { ...before, expires_at: Date.now() - 1000 } } }),
    );
    const c = captureIo();
    const header = await registryAuth(t.baseUrl, c.io, { env, interactive: false }).header();
    const after = (await stored())[t.baseUrl]!;
    expect(header).toBe(`Bearer ${String(after.access_token)}`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.email).toBe('admin@demo.test');
    expect((await createApplication(header, 'After a refresh')).status).toBe(201);
  });

  it('says how to sign in where it may not open a browser [no credentials]', async () => {
    const c = captureIo();
    await expect(
      registryAuth('http://localhost:1', c.io, {
        env: { XDG_CONFIG_HOME: configHome, CI: 'true' },
        interactive: true,
      }).header(),
    ).rejects.toThrow(
      'not signed in to http://localhost:1: run `addon-kit login --host http://localhost:1` (or set ADDON_KIT_PAT_CLIENT_ID ' +
        'and ADDON_KIT_PAT_SECRET to a personal access token of an organization administrator)',
    );
  });

  it("refuses the addons scope to an organization's own application [platform scope]", async () => {
    const app = await createOAuthApplication(t.db, testBox(), {
      organizationId: await organizationId(t.db, 'demo'),
      name: 'Some integration',
      redirectUris: ['https://integration.test/cb'],
    });
    const authorize = new URL(`${t.baseUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: 'https://integration.test/cb',
      response_type: 'code',
      scope: 'people addons',
      state: 'st',
    }).toString();
    const res = await fetch(authorize, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://integration.test/cb');
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('st');
  });
});

describe('addon-kit logout', () => {
  it('revokes the grant at the host and forgets the tokens', async () => {
    const { access_token: token } = (await stored())[t.baseUrl]!;
    const c = captureIo();
    expect(await logoutCommand(['--host', t.baseUrl], c.io, env)).toBe(0);
    expect(c.out).toEqual([`signed out of ${t.baseUrl}`]);
    expect((await stored())[t.baseUrl]).toBeUndefined();
    expect((await createApplication(`Bearer ${String(token)}`, 'After logout')).status).toBe(401);
    const again = captureIo();
    expect(await logoutCommand(['--host', t.baseUrl], again.io, env)).toBe(0);
    expect(again.out).toEqual([`not signed in to ${t.baseUrl}`]);
  });
});
