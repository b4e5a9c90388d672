/**
 * Property test: generated hostile requests (paths, query strings, headers, bodies) over every route
 * family, with and without valid credentials, never get a 5xx and never log a server error. The run is
 * bounded (FUZZ_RUNS, default 2000) and reproducible (FUZZ_SEED; the seed of every run is printed).
 */
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#host/logger.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { createSubscription, sendTestEvent } from '#host/webhooks/index.ts';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, personId } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { rawExchange, rawRequest } from '../../support/raw-http.ts';

const RUNS = Number(process.env.FUZZ_RUNS || 2000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;

let t: HttpTestHost;
const serverErrors: string[] = [];
let app: TestApplication;
const credentials: Record<string, Record<string, string>> = { none: {} };

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        if (JSON.parse(line).level >= 50) serverErrors.push(line);
      done();
    },
  });
  t = await startHttpTestHost({ deps: { logger: createLogger('error', sink) } });
  app = await createTestApplication(t.db);
  const bearer = await issueTokensForPerson(t.host.oauthProvider, t.db, {
    clientId: app.clientId,
    personId: await personId(t.db, 'admin@demo.test'),
    scopes: ['people', 'api'],
  });
  const browser = new TestBrowser(t.baseUrl);
  await browser.submit(await browser.request('/login'), { email: 'admin@demo.test', password: TEST_PASSWORD });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(
    (await browser.request('/developer/personal-access-tokens')).body,
  )![1]!;
  // A webhook subscription of the person with an event (the worker is off: it stays pending), so ids 1 reach them.
  const subscription = await createSubscription(t.db, createSecretBox(t.host.config.encryptionKeys), {
    organizationId: (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'"))
      .rows[0]!.id,
    personId: await personId(t.db, 'admin@demo.test'),
    applicationId: null,
    name: 'people.v2.events.note.created',
    url: 'http://127.0.0.1:9/hooks',
    active: true,
  });
  await sendTestEvent(t.db, subscription.row);
  credentials.pat = { authorization: await basicAuthFor(t.db, 'admin@demo.test') };
  credentials.bearer = { authorization: `Bearer ${bearer.access_token}` };
  credentials.session = { cookie: browser.jar.header('/'), 'x-csrf-token': csrf, origin: t.baseUrl };
  credentials.client = {
    authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
  };
});
afterAll(() => t.close());

/** Path segments: real ids, route words, and hostile text (bad escapes, NUL, traversal, huge, non-ASCII). */
const segment = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '0',
    '-1',
    '99999999999999999999',
    'me',
    'latest',
    '2025-09-30',
    'service',
    'integrator',
    'development',
  ),
  fc.constantFrom(
    '%',
    '%0',
    '%zz',
    '%00',
    '%E0%A4%A',
    '%FF',
    '%C0%AF',
    '..',
    '%2e%2e',
    '%2F',
    '~',
    "'",
    '"',
    '<x>',
    '{}',
    'a'.repeat(3000),
  ),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))),
  fc.string({ unit: fc.constantFrom(...'azAZ09%!$&\'()*+,;=:@-._~[]^`{}|"<>\\'.split('')), maxLength: 10 }),
);

const ROUTES = [
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/refresh',
  '/oauth/revoke',
  '/oauth/introspect',
  '/oauth/userinfo',
  '/oauth/discovery/keys',
  '/oauth/interaction/{}',
  '/oauth/interaction/{}/login',
  '/oauth/interaction/{}/consent',
  '/oauth/authorize/{}',
  '/login',
  '/logout',
  '/developer',
  '/developer/personal-access-tokens',
  '/developer/personal-access-tokens/{}/delete',
  '/developer/oauth-applications',
  '/developer/oauth-applications/{}',
  '/developer/oauth-applications/{}/secret',
  '/developer/oauth-applications/{}/delete',
  '/developer/webhooks',
  '/developer/webhooks/{}',
  '/developer/webhooks/{}/active',
  '/developer/webhooks/{}/rotate-secret',
  '/developer/webhooks/{}/test',
  '/developer/webhooks/{}/delete',
  '/developer/webhooks/{}/events/{}',
  '/developer/webhooks/{}/events/{}/{}',
  '/addons/installations',
  '/addons/installations/{}/state',
  '/addons/installations/{}/bundle.js',
  '/addons/installations/{}/authorize',
  '/addons/installations/{}/fetch/{}',
  '/addons/authorizations/{}',
  '/addons/authorizations/{}/advance',
  '/addons/v1/applications/{}/environments/{}',
  '/addons/v1/applications/{}/environments/{}/promotions',
  '/current/v2/me',
  '/current/v2/{}',
  '/people/v2/lists',
  '/people/v2/lists/{}',
  '/people/v2/lists/{}/run',
  '/people/v2/lists/{}/people',
  '/people/v2/lists/{}/{}',
  '/people/v2/notes',
  '/people/v2/notes/{}',
  '/people/v2/notes/{}/{}',
  '/people/v2/people/{}',
  '/people/v2/{}',
  '/api/v2',
  '/api/v2/oauth_applications',
  '/api/v2/oauth_applications/{}/mau/{}',
  '/api/v2/connected_applications/{}/people/{}',
  '/api/v2/personal_access_tokens/{}',
  '/api/v2/open_api/{}',
  '/api/v2/{}',
  '/.well-known/openid-configuration',
  '/.well-known/{}',
  '/docs/api',
  '/health',
  '/demo/lists/{}',
  '/{}',
  '/{}/{}',
];

const path = fc
  .tuple(fc.constantFrom(...ROUTES), fc.array(segment, { minLength: 4, maxLength: 4 }))
  .map(([route, segments]) => route.replace(/\{\}/g, () => segments.shift() ?? 'x'));

const PARAMS = [
  'fields[Note]',
  'fields[List]',
  'where[id]',
  'where[created_at]',
  'where[note]',
  'status',
  'sent',
  'per_page',
  'offset',
  'include',
  'order',
  'filter',
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'return_to',
];
const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '-1',
    '101',
    '1e3',
    'true',
    'people',
    'code',
    'S256',
    '2025-01-01T00:00:00Z',
    '%',
    '%00',
    '%E0%A4%A',
    '+',
  ),
  segment,
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMS).map(encodeURIComponent), segment), queryValue), {
      maxLength: 4,
    })
    .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
);

/** Header values a client can send: latin-1 printable text, never CR, LF or NUL. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xfe }).map((c) => String.fromCharCode(c === 0x7f ? 0xff : c)),
  maxLength: 40,
});
const headers = fc.record(
  {
    credentials: fc.constantFrom('none', 'pat', 'bearer', 'session', 'client'),
    userAgent: fc.oneof(fc.constant(TEST_USER_AGENT), fc.constant(''), headerText),
    authorization: fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('Basic ADoA', 'Basic', 'Basic !!!', 'Bearer', 'Bearer %00', 'Digest x'),
      headerText.map((h) => `Basic ${Buffer.from(h, 'latin1').toString('base64')}`),
      headerText.map((h) => `Bearer ${h}`),
    ),
    contentType: fc.constantFrom(
      'application/json',
      'application/vnd.api+json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin9',
      '*/*',
      '',
    ),
    contentEncoding: fc.constantFrom(undefined, 'gzip', 'deflate', 'br', 'identity', 'compress', 'x'),
    apiVersion: fc.constantFrom(undefined, '2025-09-30', '1999-01-01', '%', 'latest'),
    accept: fc.constantFrom(undefined, 'application/json', 'text/html', '*/*', 'image/png'),
    origin: fc.constantFrom(undefined, 'null', 'http://evil.example'),
    host: fc.constantFrom(undefined, 'evil.example', ''),
    extra: fc.dictionary(
      fc.constantFrom(
        'x-forwarded-for',
        'x-forwarded-host',
        'x-forwarded-proto',
        'x-csrf-token',
        'range',
        'if-none-match',
        'cookie',
      ),
      headerText,
      { maxKeys: 3 },
    ),
  },
  { requiredKeys: ['credentials', 'userAgent', 'contentType'] },
);

const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }),
  fc.constantFrom(
    '{"data":{"type":"Note","attributes":{"note":"x\\u0000y","note_category_id":"1"}}}',
    '{"data":{"type":"List","attributes":{"name":null}}}',
    '[]',
    'null',
    '{',
    'x',
  ),
  fc
    .dictionary(
      fc.constantFrom(
        '_csrf',
        'email',
        'password',
        'name',
        'grant_type',
        'code',
        'token',
        'refresh_token',
        'client_id',
        'client_secret',
        'redirect_uri',
        'decision',
      ),
      queryValue,
      { maxKeys: 5 },
    )
    .map((f) =>
      Object.entries(f)
        .map(([k, v]) => `${k}=${v}`)
        .join('&'),
    ),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'),
  path,
  query,
  headers,
  body,
  gzip: fc.boolean(),
});

describe('every route family [hostile input]', () => {
  it('never answers 5xx and never logs a server error', { timeout: 120_000 }, async () => {
    const statuses = new Map<number, number>();
    console.log(`fuzz: ${RUNS} generated requests, seed ${SEED} (repeat with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`);
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const h: Record<string, string> = { ...credentials[r.headers.credentials], 'user-agent': r.headers.userAgent };
        if (r.headers.authorization !== undefined) h.authorization = r.headers.authorization;
        if (r.headers.host !== undefined) h.host = r.headers.host;
        if (r.headers.apiVersion) h['x-api-version'] = r.headers.apiVersion;
        if (r.headers.accept) h.accept = r.headers.accept;
        if (r.headers.origin) h.origin = r.headers.origin;
        Object.assign(h, r.headers.extra);
        let payload: Buffer | undefined;
        if (r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD') {
          payload = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
          if (r.headers.contentType) h['content-type'] = r.headers.contentType;
          if (r.headers.contentEncoding) h['content-encoding'] = r.headers.contentEncoding;
          if (r.gzip && r.headers.contentEncoding === 'gzip') payload = gzipSync(payload);
        }
        const res = await rawRequest(t.baseUrl, {
          method: r.method,
          path: `${r.path}${r.query}`,
          headers: h,
          ...(payload ? { body: payload } : {}),
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500)
          throw new Error(`${r.method} ${r.path}${r.query} → ${res.status}: ${res.body.slice(0, 300)}`);
        if (serverErrors.length)
          throw new Error(`${r.method} ${r.path}${r.query} logged: ${serverErrors.join('\n').slice(0, 600)}`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // What the run reached: a run answered only with 400s would prove little.
    console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect([...statuses.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
    expect(serverErrors).toEqual([]);
  });

  it('answers request lines the HTTP parser refuses with 400 and no 5xx', async () => {
    const lines = [
      'FOO / HTTP/1.1',
      'GE T /health HTTP/1.1',
      'get /health HTTP/1.1',
      '\u0000GET / HTTP/1.1',
      'GET /%00 HTTP/1.1',
      'BREW /coffee HTTP/1.1',
      'GET / HTTP/9.9',
    ];
    for (const line of lines) {
      const out = await rawExchange(t.baseUrl, `${line}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(out, line).toMatch(/^HTTP\/1\.1 4\d\d /);
    }
  });
});
