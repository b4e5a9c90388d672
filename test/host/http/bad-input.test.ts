import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#host/logger.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { parseForms, TestBrowser } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { rawExchange, rawRequest } from '../../support/raw-http.ts';

let t: HttpTestHost;
let basic: string;
const lines: { level: number; msg: string; path?: string; status?: number; aborted?: boolean }[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  t = await startHttpTestHost({ deps: { logger: createLogger('info', sink) } });
  basic = await basicAuthFor(t.db, 'admin@demo.test');
});
afterAll(() => t.close());

const MALFORMED_URL = {
  errors: [
    {
      status: '400',
      code: 'invalid_parameter',
      title: 'Bad Request',
      detail: 'The request URL is not correctly percent-encoded',
    },
  ],
};
const NUL_TEXT = {
  errors: [
    {
      status: '400',
      code: 'invalid_parameter',
      title: 'Bad Request',
      detail: 'Text values may not contain NUL characters',
    },
  ],
};
const serverErrors = () => lines.filter((l) => l.level >= 50);

async function loggedIn(): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const { TEST_PASSWORD } = await import('../../support/constants.ts');
  const done = await browser.submit(await browser.request('/login'), {
    email: 'admin@demo.test',
    password: TEST_PASSWORD,
  });
  expect(done.status).toBe(303);
  return browser;
}

describe('malformed percent escapes', () => {
  it.each(['/oauth/interaction/%', '/addons/installations/%/state', '/people/v2/lists/%E0%A4%A', '/%FF'])(
    'answer 400 with the error envelope for the path %s [no login]',
    async (path) => {
      const res = await rawRequest(t.baseUrl, { path, headers: { 'user-agent': TEST_USER_AGENT } });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual(MALFORMED_URL);
    },
  );

  it('answer 400 for a query-string key that does not decode [PAT]', async () => {
    const res = await rawRequest(t.baseUrl, {
      path: '/people/v2/notes?%E0%A4%A=1',
      headers: { 'user-agent': TEST_USER_AGENT, authorization: basic },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(MALFORMED_URL);
  });

  it('leave well-encoded paths and queries alone', async () => {
    const res = await rawRequest(t.baseUrl, {
      path: '/people/v2/notes?per_page=1&where%5Bnote%5D=a%20b',
      headers: { 'user-agent': TEST_USER_AGENT, authorization: basic },
    });
    expect(res.status).toBe(200);
  });
});

describe('NUL characters', () => {
  it('answer 400 in HTTP Basic credentials (Basic ADoA) instead of reaching the database', async () => {
    const res = await rawRequest(t.baseUrl, {
      path: '/current/v2/me',
      headers: { 'user-agent': TEST_USER_AGENT, authorization: 'Basic ADoA' },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(NUL_TEXT);
  });

  it('are an unknown client at the token endpoint (401 invalid_client)', async () => {
    const res = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=x&redirect_uri=https%3A%2F%2Fa.example&client_id=a%00b&client_secret=s',
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed',
    });
  });

  it('are an unknown client at the authorization endpoint (400 page, no server error)', async () => {
    const res = await rawRequest(t.baseUrl, {
      path: '/oauth/authorize?client_id=a%00b&response_type=code&scope=people&redirect_uri=https%3A%2F%2Fa.example',
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<title>Authorization failed · addon-kit</title>');
  });

  it('are a failed login in the sign-in e-mail', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const page = await browser.submit(await browser.request('/login'), {
      email: 'admin@demo.test\u0000',
      password: 'x',
    });
    expect(page.status).toBe(401);
    expect(page.body).toContain('The e-mail address or password is incorrect.');
  });

  it('answer 400 in a personal access token name on the developer pages', async () => {
    const browser = await loggedIn();
    const list = await browser.request('/developer/personal-access-tokens');
    const index = parseForms(list.body).findIndex((f) => f.action.endsWith('/developer/personal-access-tokens'));
    const res = await browser.submit(list, { name: 'a\u0000b' }, { formIndex: index });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual(NUL_TEXT);
    expect((await t.db.query("SELECT 1 FROM personal_access_tokens WHERE name LIKE 'a%b'")).rowCount).toBe(0);
  });
});

describe('request bodies', () => {
  it('answer 400 for a gzip body that does not inflate (POST /login)', async () => {
    const res = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
      body: 'x',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      errors: [{ status: '400', title: 'Bad Request', detail: 'The request could not be read' }],
    });
  });

  it('answer 415 for an unsupported Content-Encoding', async () => {
    const res = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/people/v2/notes',
      headers: {
        'user-agent': TEST_USER_AGENT,
        authorization: basic,
        'content-type': 'application/json',
        'content-encoding': 'compress',
      },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.body)).toEqual({
      errors: [
        { status: '415', title: 'Unsupported Media Type', detail: 'The request body encoding is not supported' },
      ],
    });
  });

  it('still accept a well-formed gzip body', async () => {
    const res = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/people/v2/notes',
      headers: {
        'user-agent': TEST_USER_AGENT,
        authorization: basic,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync('not json'),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).errors[0].code).toBe('invalid_json');
  });

  it('log the whole path of a route in a mounted router, without its query string [log path]', async () => {
    const before = lines.length;
    const res = await rawRequest(t.baseUrl, {
      method: 'POST',
      path: '/addons/installations/1/fetch/service?code=secret',
      headers: { 'user-agent': TEST_USER_AGENT },
    });
    expect(res.status).toBe(401);
    await expect
      .poll(
        () =>
          lines
            .slice(before)
            .filter((l) => l.msg === 'request')
            .map((l) => [l.path, l.status]),
        {
          timeout: 5000,
        },
      )
      .toEqual([['/addons/installations/1/fetch/service', 401]]);
  });

  it('log a client hanging up mid-body as an aborted 400, not as a server error', async () => {
    const before = lines.length;
    const url = new URL(t.baseUrl);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /people/v2/notes HTTP/1.1\r\nHost: x\r\nUser-Agent: ${TEST_USER_AGENT}\r\nAuthorization: ${basic}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"data":`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
    });
    await expect
      .poll(() => lines.slice(before).find((l) => l.msg === 'request' && l.path === '/people/v2/notes'), {
        timeout: 5000,
      })
      .toBeDefined();
    const logged = lines.slice(before);
    expect(logged.find((l) => l.msg === 'request')).toMatchObject({ status: 400, aborted: true });
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('malformed HTTP on the OAuth provider’s routes', () => {
  it('never prints the parser error to stderr', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (let i = 0; i < 5; i++) {
        const out = await rawExchange(
          t.baseUrl,
          'DELETE /oauth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nbody after a request without length',
        );
        expect(out).toMatch(/^HTTP\/1\.1 4\d\d /);
      }
      // The provider reports the parser error once the response has finished.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });
});

describe('all of the above', () => {
  it('logged no server error', () => {
    expect(serverErrors()).toEqual([]);
  });
});
