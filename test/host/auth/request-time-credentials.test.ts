import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '#host/app.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { createLogger } from '#host/logger.ts';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { personId, testConfig } from '../../support/host.ts';
import { parseForms, TestBrowser } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

/** Two app instances on one database, as a host scaled out to two processes is. */
let first: HttpTestHost;
let second: { host: Host; server: Server; baseUrl: string };

beforeAll(async () => {
  first = await startHttpTestHost();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const host = await createHost({ config: testConfig({ baseUrl }), db: first.db, logger: createLogger('silent') });
  server.on('request', host.app);
  second = { host, server, baseUrl };
});
afterAll(async () => {
  second.server.closeAllConnections();
  await new Promise<void>((resolve) => second.server.close(() => resolve()));
  await second.host.close();
  await first.close();
});

const UNAUTHORIZED = {
  errors: [
    {
      status: '401',
      title: 'Unauthorized',
      detail: 'The authenticated user has no record in this application or the credentials are not valid',
    },
  ],
};
const FORBIDDEN_VIEWER = {
  errors: [
    {
      status: '403',
      title: 'Forbidden',
      detail: 'You do not have access to this resource',
      meta: { description: 'This request needs the people viewer role or higher' },
    },
  ],
};

async function newToken(email: string): Promise<{ id: string; authorization: string }> {
  const token = await createPersonalAccessToken(first.db, await personId(first.db, email), 'request time');
  return {
    id: token.id,
    authorization: `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`,
  };
}

async function get(baseUrl: string, path: string, authorization: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization, 'user-agent': TEST_USER_AGENT } });
  return { status: res.status, body: await res.json() };
}

describe('authenticate() [personal access tokens]', () => {
  it('answers 401 on the request right after the token was deleted through another instance [revoke]', async () => {
    const token = await newToken('editor@demo.test');
    // Both instances have just accepted the token.
    expect((await get(first.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).status).toBe(200);
    expect((await get(second.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).status).toBe(200);

    const browser = new TestBrowser(second.baseUrl);
    expect(
      (await browser.submit(await browser.request('/login'), { email: 'editor@demo.test', password: TEST_PASSWORD }))
        .status,
    ).toBe(303);
    const page = await browser.request('/developer/personal-access-tokens');
    const form = parseForms(page.body).findIndex((f) =>
      f.action.endsWith(`/personal-access-tokens/${token.id}/delete`),
    );
    expect(form).toBeGreaterThanOrEqual(0);
    expect((await browser.submit(page, {}, { formIndex: form })).status).toBe(303);

    expect(await get(first.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
    expect(await get(second.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
  });

  it('answers 401 on the next request once the token is disabled [disabled]', async () => {
    const token = await newToken('member@demo.test');
    expect((await get(first.baseUrl, '/current/v2/me', token.authorization)).status).toBe(200);
    await first.db.query('UPDATE personal_access_tokens SET disabled_at = now() WHERE id = $1', [token.id]);
    expect(await get(first.baseUrl, '/current/v2/me', token.authorization)).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
  });

  it('applies a role change on the next request, in every instance [role]', async () => {
    const token = await newToken('member@demo.test');
    const member = await personId(first.db, 'member@demo.test');
    const { rows } = await first.db.query<{ role: string }>(
      "SELECT role FROM person_product_roles WHERE person_id = $1 AND product = 'people'",
      [member],
    );
    expect(rows[0]?.role).toBe('viewer');
    expect((await get(first.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).status).toBe(200);
    expect((await get(second.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).status).toBe(200);

    await first.db.query("DELETE FROM person_product_roles WHERE person_id = $1 AND product = 'people'", [member]);
    expect(await get(first.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).toEqual({
      status: 403,
      body: FORBIDDEN_VIEWER,
    });
    expect(await get(second.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).toEqual({
      status: 403,
      body: FORBIDDEN_VIEWER,
    });

    await first.db.query(
      "INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, 'people', 'viewer')",
      [member],
    );
    expect((await get(first.baseUrl, '/people/v2/notes?per_page=1', token.authorization)).status).toBe(200);
  });
});
