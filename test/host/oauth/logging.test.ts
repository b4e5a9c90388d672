import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#host/logger.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, credentials, obtainCode, postOAuth, REDIRECT_URI } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t = await startHttpTestHost({ deps: { logger: createLogger('trace', sink) } });
});
afterAll(() => t.close());

/** Cookie values that are secrets; the interaction cookies hold the interaction uid, which is in its URL by design. */
function sessionCookies(browser: TestBrowser): string[] {
  const cookies = [...browser.jar.cookies.values()].filter(
    (c) => c.name !== 'addon_kit_interaction' && c.name !== 'addon_kit_interaction_resume',
  );
  expect(cookies.map((c) => c.name)).toEqual(expect.arrayContaining(['addon_kit_session', 'addon_kit_op_session']));
  return cookies.map((c) => c.value);
}

describe('host logs [OAuth]', () => {
  it('never contain codes, tokens, client secrets, passwords or cookies', async () => {
    const app = await createTestApplication(t.db);
    const browser = new TestBrowser(t.baseUrl);
    const { code, verifier } = await obtainCode(browser, app);
    const tokens = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    });
    const refreshed = await postOAuth(
      t.baseUrl,
      '/oauth/refresh',
      { refresh_token: tokens.body.refresh_token as string, ...credentials(app) },
      { json: true },
    );
    await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: 'bogus',
      client_id: app.clientId,
      client_secret: 'wrong-secret-value',
    });
    await postOAuth(t.baseUrl, '/oauth/revoke', { token: refreshed.body.access_token as string, ...credentials(app) });
    expect(lines.length).toBeGreaterThan(5);
    const log = lines.join('');
    const secrets = [
      code,
      verifier,
      tokens.body.access_token,
      tokens.body.refresh_token,
      refreshed.body.refresh_token,
      app.clientSecret,
      'wrong-secret-value',
      TEST_PASSWORD,
      ...sessionCookies(browser),
    ];
    for (const secret of secrets) expect(log).not.toContain(String(secret));
  });
});
