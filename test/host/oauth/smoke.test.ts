import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
beforeAll(async () => {
  t = await startHttpTestHost();
});
afterAll(() => t.close());

it('smoke', async () => {
  const disc = await fetch(`${t.baseUrl}/.well-known/openid-configuration`);
  console.log(JSON.stringify(await disc.json(), null, 1));
  const app = await createTestApplication(t.db);
  const config = await discoverClient(t.baseUrl, app);
  const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { nonce: 'n-123' });
  console.log(tokens, tokens.claims());
  expect(tokens.access_token).toBeTruthy();
});
