/**
 * The README's "Limits and errors" section (the guide at /docs/guides/limits-and-errors) against the host: every
 * row of its two error tables is asked of a running host, which must answer that row's status and exactly its
 * example body; every row has a request here, and every request here a row. So the guide cannot show an error the
 * host does not give.
 */
import { request } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { GUIDE_SOURCES, guideMarkdown, repositoryRoot } from '#host/docs/guide-sources.ts';
import { errorHandler } from '#host/http/error-handler.ts';
import { listenOn } from '#host/http/listen.ts';
import { hostStartingListener } from '#host/http/starting-response.ts';
import { createLogger } from '#host/logger.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { TEST_ENCRYPTION_KEY, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

/** One row of an error table: its status, its `code` / `error` (empty when none) and its example body. */
interface Row {
  status: number;
  code: string;
  body: unknown;
}

/** What the host answered. */
interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

const guide = GUIDE_SOURCES.find((g) => g.slug === 'limits-and-errors')!;
const section = guideMarkdown(guide, repositoryRoot()!)!;

/** The rows of the table under the paragraph that contains `after`. */
function tableRows(after: string): Row[] {
  const table = section.slice(section.indexOf(after)).split('\n\n')[1]!;
  return table
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const cells = /^\| (\d{3}) \| (?:`([a-z_]+)` )?\| .* \| `(\{.*\})` \|$/.exec(line);
      expect(cells, line).not.toBeNull();
      return { status: Number(cells![1]), code: cells![2] ?? '', body: JSON.parse(cells![3]!) as unknown };
    });
}

/** A row's key: its status and its code, or its title when it has none (`403 Forbidden`). */
function keyOf(row: Row): string {
  return `${row.status} ${row.code || (row.body as { errors: { title: string }[] }).errors[0]!.title}`;
}

let t: HttpTestHost;
let admin: string;
let member: string;
let listId: string;
let client: { basic: string; wrong: string };

beforeAll(async () => {
  t = await startHttpTestHost({ config: { rateLimit: '100/20' } });
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  member = await basicAuthFor(t.db, 'member@demo.test');
  const { rows } = await t.db.query<{ id: string; organization_id: string }>(
    "SELECT l.id::text, l.organization_id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'demo' ORDER BY l.id LIMIT 1",
  );
  listId = rows[0]!.id;
  const app = await createOAuthApplication(t.db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    organizationId: rows[0]!.organization_id,
    name: 'Errors guide',
    redirectUris: ['https://client.example/callback'],
  });
  const basic = (secret: string) => `Basic ${Buffer.from(`${app.client_id}:${secret}`).toString('base64')}`;
  client = { basic: basic(app.client_secret!), wrong: basic('not-the-secret') };
});
afterAll(() => t?.close());

async function answer(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
}

/** A request to the host's APIs as the demo administrator (or `auth`). */
function api(path: string, init: RequestInit & { auth?: string } = {}): Promise<Answer> {
  const headers = { 'User-Agent': TEST_USER_AGENT, Authorization: init.auth ?? admin, ...init.headers };
  return answer(`${t.baseUrl}${path}`, { ...init, headers });
}

/** A JSON `PATCH` of the List. */
const patchList = (body: string, headers: Record<string, string> = {}, auth = admin) =>
  api(`/people/v2/lists/${listId}`, {
    method: 'PATCH',
    body,
    auth,
    headers: { 'Content-Type': 'application/json', ...headers },
  });

/** A form `POST` to the token endpoint. */
const token = (form: string, authorization = client.basic) =>
  answer(`${t.baseUrl}/oauth/token`, {
    method: 'POST',
    body: form,
    headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
  });

/** A request with no User-Agent at all (fetch always sends one). */
function withoutUserAgent(path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(`${t.baseUrl}${path}`, { headers: { Authorization: admin } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: new Headers(), body: JSON.parse(text) as unknown }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** How each documented error is caused. */
const CAUSES: Record<string, () => Promise<Answer>> = {
  '400 invalid_parameter': () => api('/people/v2/lists?where[id]=abc'),
  '400 integer_out_of_range': () => api('/people/v2/lists?per_page=500'),
  '400 unknown_attribute': () => api('/people/v2/lists?include=nope'),
  '400 unsupported_version': () => api('/api/v2', { headers: { 'X-API-Version': '1999-01-01' } }),
  '400 invalid_json': () => patchList('{'),
  '400 invalid_resource_payload': () => patchList('{"data":{"type":"Note"}}'),
  '401 Unauthorized': async () => {
    const none = await answer(`${t.baseUrl}/people/v2/lists`, { headers: { 'User-Agent': TEST_USER_AGENT } });
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="addon-kit", Basic realm="addon-kit"');
    const refused = await api('/people/v2/lists', { auth: 'Bearer not-a-token' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="addon-kit", error="invalid_token"');
    expect(refused.body).toEqual(none.body);
    return none;
  },
  '403 Forbidden': async () => {
    const noUserAgent = await withoutUserAgent('/people/v2/lists');
    expect([noUserAgent.status, noUserAgent.body]).toEqual([
      403,
      {
        errors: [
          {
            status: '403',
            title: 'Forbidden',
            detail: 'You do not have access to this resource',
            meta: { description: 'Every API request must carry a User-Agent header identifying the application' },
          },
        ],
      },
    ]);
    return patchList('{"data":{"type":"List","attributes":{"name":"Renamed"}}}', {}, member);
  },
  '404 Not Found': async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "SELECT l.id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'other' LIMIT 1",
    );
    const others = await Promise.all([
      api(`/people/v2/lists/${rows[0]!.id}`),
      api(`/people/v2/lists/${listId}`, { method: 'PUT' }),
      answer(`${t.baseUrl}/no/such/path`),
    ]);
    const missing = await api('/people/v2/lists/999999');
    for (const other of others) expect([other.status, other.body]).toEqual([404, missing.body]);
    return missing;
  },
  '413 payload_too_large': () => patchList(JSON.stringify({ padding: 'x'.repeat(1_100_000) })),
  '415 Unsupported Media Type': () => patchList('{}', { 'Content-Encoding': 'compress' }),
  '422 invalid_enum_value': () => patchList('{"data":{"type":"List","attributes":{"returns":"everyone"}}}'),
  '422 invalid_payload': () => patchList('{"data":{"type":"List","attributes":{"auto_refresh":"yes"}}}'),
  '422 attribute_resource_not_found': () =>
    patchList('{"data":{"type":"List","relationships":{"campus":{"data":{"type":"Campus","id":"999999"}}}}}'),
  '422 Forbidden Attribute': () => patchList('{"data":{"type":"List","attributes":{"total_people":3}}}'),
  '422 Validation Error': async () => {
    await t.db.query(
      "INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, 'shoe_size', 'is', '42', 9)",
      [listId],
    );
    return api(`/people/v2/lists/${listId}/run`, { method: 'POST' });
  },
  '422 bulkmail_not_configured': () => api(`/people/v2/lists/${listId}/bulkmail_sync`, { method: 'POST' }),
  '429 rate_limit_exceeded': async () => {
    // A token of its own, so its count starts at 0: the 101st request of the period is refused.
    const fresh = await basicAuthFor(t.db, 'editor@demo.test');
    for (let i = 1; i <= 100; i++) expect((await api('/people/v2/me', { auth: fresh })).status).toBe(200);
    const refused = await api('/people/v2/me', { auth: fresh });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(20);
    expect(refused.headers.get('x-pco-api-request-rate-count')).toBe('101');
    return refused;
  },
  '500 Internal Server Error': async () => {
    // The host's own error handler, given a failure it does not know.
    const app = express();
    app.get('/fails', () => {
      throw new Error('connection to the database lost: password=secret');
    });
    app.use(errorHandler(createLogger('silent')));
    const listener = await listenOn(0, '127.0.0.1', app);
    try {
      return await answer(`http://127.0.0.1:${listener.port}/fails`);
    } finally {
      await listener.close();
    }
  },
  '503 starting': async () => {
    const listener = await listenOn(0, '127.0.0.1', hostStartingListener('pglite'));
    try {
      const res = await answer(`http://127.0.0.1:${listener.port}/people/v2/lists`);
      expect(res.headers.get('retry-after')).toBe('1');
      return res;
    } finally {
      await listener.close();
    }
  },
};

/** How each documented OAuth error is caused. */
const OAUTH_CAUSES: Record<string, () => Promise<Answer>> = {
  '400 invalid_request': () => token('code=abc'),
  '401 invalid_client': () => token('grant_type=refresh_token&refresh_token=abc', client.wrong),
  '400 invalid_grant': () =>
    token(
      `grant_type=authorization_code&code=abc&redirect_uri=${encodeURIComponent('https://client.example/callback')}&code_verifier=${'a'.repeat(43)}`,
    ),
  '400 unsupported_grant_type': () => token('grant_type=password&username=a&password=b'),
  '429 slow_down': async () => {
    // 10 failures per client id and address are answered; the 11th is throttled.
    for (let i = 0; i < 9; i++)
      expect((await token('grant_type=refresh_token&refresh_token=abc', client.wrong)).status).toBe(401);
    const throttled = await token('grant_type=refresh_token&refresh_token=abc', client.wrong);
    expect(throttled.headers.get('retry-after')).toBe('300');
    return throttled;
  },
};

describe('README "Limits and errors" (the guide /docs/guides/limits-and-errors)', () => {
  it('shows the error envelope of the JSON APIs exactly as the host answers it, for every status it lists', async () => {
    const rows = tableRows('The host answers no 405');
    expect(rows.map(keyOf)).toEqual(Object.keys(CAUSES));
    for (const row of rows) {
      const got = await CAUSES[keyOf(row)]!();
      expect([keyOf(row), got.status, got.body]).toEqual([keyOf(row), row.status, row.body]);
      expect(got.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it("shows the OAuth endpoints' errors in the RFC 6749 shape exactly as the host answers them", async () => {
    const rows = tableRows('OAuth 2.0 does (RFC 6749');
    expect(rows.map(keyOf)).toEqual(Object.keys(OAUTH_CAUSES));
    for (const row of rows) {
      const got = await OAUTH_CAUSES[keyOf(row)]!();
      expect([keyOf(row), got.status, got.body]).toEqual([keyOf(row), row.status, row.body]);
      expect(got.headers.get('cache-control')).toBe('no-store');
    }
  });

  it("shows the rate limit's 429 in its limits as in the errors table", () => {
    const inLimits = /over the limit the answer is `429` with `Retry-After` \(seconds\) and\s+`(\{.*?\})`/.exec(
      section,
    )![1]!;
    const row = tableRows('The host answers no 405').find((r) => r.code === 'rate_limit_exceeded')!;
    expect(JSON.parse(inLimits)).toEqual(row.body);
  });
});
