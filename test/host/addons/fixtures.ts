/** Fixtures of the add-on runtime tests: a registered add-on, a real local integrator, a logged-in browser. */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { expect } from 'vitest';
import { integratorSecretAad } from '#host/addons/registry/installations.ts';
import {
  createTokenVault,
  type TokenSet,
  type TokenVault,
  type VaultRecord,
} from '#host/addons/authorizations/token-vault.ts';
import { createSecretBox, type SecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD } from '../../support/constants.ts';
import { TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import {
  CSRF_FORM_FIELD,
  CSRF_HEADER,
  FETCH_HEADER,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
  type UpstreamEnvelope,
} from '@addon-kit/sdk/protocol';

export const INTEGRATOR_CLIENT = { id: 'sample-client', secret: 'sample-secret' };

export function testBox(): SecretBox {
  return createSecretBox([TEST_ENCRYPTION_KEY]);
}

export function testVault(db: Database): TokenVault {
  return createTokenVault(db, testBox());
}

/**
 * A `ready` authorization reached the way the handshake reaches it (the state machine refuses shortcuts):
 * host grant stored (`service`, or a placeholder when the test makes no service call) → `integrator_pending`
 * → the integrator tokens stored → `ready`.
 */
export async function seedReady(
  vault: TokenVault,
  installation: string,
  personId: string,
  integrator: TokenSet,
  service: { tokens: TokenSet; scopes: string[] } = {
    tokens: { accessToken: 'unused-host-token', refreshToken: undefined, expiresAt: undefined, scope: 'people' },
    scopes: ['people'],
  },
): Promise<VaultRecord> {
  const record = await vault.ensure(installation, personId);
  await vault.saveServiceTokens(record.id, service.tokens, service.scopes);
  await vault.setState(record.id, 'integrator_pending');
  await vault.saveIntegratorTokens(record.id, integrator, { state: 'ready' });
  return (await vault.findById(record.id))!;
}

/** The session's CSRF token, as the host page reads it from the installation listing. */
export async function csrfTokenOf(browser: TestBrowser): Promise<string> {
  const list = await browser.request('/addons/installations', { headers: { accept: 'application/json' } });
  return (JSON.parse(list.body) as { csrf_token: string }).csrf_token;
}

/** Step 0 as the Authorize button runs it: the start's form POST with the session's CSRF token. */
export async function startAuthorization(
  browser: TestBrowser,
  installation: string,
  csrf?: string,
): Promise<PageResponse> {
  const token = csrf ?? (await csrfTokenOf(browser));
  return browser.request(`/addons/installations/${installation}/authorize`, {
    form: { [CSRF_FORM_FIELD]: token },
    headers: { origin: new URL(browser.baseUrl).origin },
  });
}

export async function organizationId(db: Database, slug: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [slug]);
  return rows[0]!.id;
}

export interface AddonFixture {
  oauthApplicationId: string;
  clientId: string;
  clientSecret: string;
  addonId: string;
  versionId: string;
}

/** An OAuth application of the demo organization with an add-on version registered directly in the database. */
export async function registerAddon(
  db: Database,
  options: {
    integratorUrl: string;
    environment?: 'development' | 'beta' | 'production';
    organizationIds?: string[];
    scopes?: string[];
    redirectUris?: string[];
  },
): Promise<AddonFixture> {
  const box = testBox();
  const org = await organizationId(db, 'demo');
  const app = await createOAuthApplication(db, box, {
    organizationId: org,
    name: 'Messages add-on',
    redirectUris: options.redirectUris ?? [`${options.integratorUrl}/oauth/complete`],
    addOnScopes: (options.scopes ?? ['people']).join(' '),
  });
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO addons (oauth_application_id, organization_id) VALUES ($1, $2) RETURNING id::text',
    [app.id, org],
  );
  const addonId = rows[0]!.id;
  const versionId = await addVersion(db, addonId, options);
  return { oauthApplicationId: app.id, clientId: app.client_id, clientSecret: app.client_secret!, addonId, versionId };
}

/** Adds a version of an environment (the live one from now on). */
export async function addVersion(
  db: Database,
  addonId: string,
  options: {
    integratorUrl: string;
    environment?: 'development' | 'beta' | 'production';
    organizationIds?: string[];
    scopes?: string[];
  },
): Promise<string> {
  const box = testBox();
  const base = options.integratorUrl;
  const bundle = 'export default function addon() {}';
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO addon_versions (addon_id, environment, version, scopes, ui_extensions, integrator_oauth, integrator_client_secret_encrypted, integrator_api, organization_ids, bundle, bundle_sha256)
     SELECT $1::bigint, $2::text, COALESCE(MAX(version), 0) + 1, $3::text[], $4::jsonb, $5::jsonb, 'pending', $6::jsonb, $7::bigint[], $8::text, $9::text
     FROM addon_versions WHERE addon_id = $1::bigint AND environment = $2::text RETURNING id::text`,
    [
      addonId,
      options.environment ?? 'development',
      options.scopes ?? ['people'],
      JSON.stringify({
        'people.list.send_message': { title: 'Send a message', icon_url: `${base}/icon.svg`, entry: 'send-message' },
      }),
      JSON.stringify({
        authorize_url: `${base}/oauth/authorize`,
        token_url: `${base}/oauth/token`,
        redirect_url: `${base}/oauth/complete`,
        client_id: INTEGRATOR_CLIENT.id,
        scopes: ['messages'],
      }),
      JSON.stringify({
        base_url: base,
        allow: [
          { method: 'GET', path: '/api/messages' },
          { method: 'POST', path: '/api/messages' },
          { method: 'GET', path: '/api/messages/:id' },
          { method: 'GET', path: '/api/redirect' },
          { method: 'GET', path: '/api/slow' },
          { method: 'GET', path: '/api/big' },
          { method: 'GET', path: '/api/gzip' },
        ],
      }),
      options.organizationIds ?? [],
      bundle,
      createHash('sha256').update(bundle).digest('hex'),
    ],
  );
  const versionId = rows[0]!.id;
  await db.query('UPDATE addon_versions SET integrator_client_secret_encrypted = $2 WHERE id = $1', [
    versionId,
    box.seal(INTEGRATOR_CLIENT.secret, integratorSecretAad(versionId)),
  ]);
  return versionId;
}

/** The installation id of an add-on environment for an organization (created as the host would). */
export async function installationId(
  db: Database,
  addonId: string,
  orgSlug = 'demo',
  environment = 'development',
): Promise<string> {
  const org = await organizationId(db, orgSlug);
  await db.query(
    'INSERT INTO addon_installations (addon_id, organization_id, environment) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [addonId, org, environment],
  );
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM addon_installations WHERE addon_id = $1 AND organization_id = $2 AND environment = $3',
    [addonId, org, environment],
  );
  return rows[0]!.id;
}

/** A browser logged in to the host, with the session's CSRF token. */
export async function loggedIn(
  baseUrl: string,
  email = 'admin@demo.test',
): Promise<{ browser: TestBrowser; csrf: string; cookie: string }> {
  const browser = new TestBrowser(baseUrl);
  const form = await browser.request('/login');
  const done = await browser.submit(form, { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  const list = await browser.request('/addons/installations', { headers: { accept: 'application/json' } });
  expect(list.status).toBe(200);
  const csrf = (JSON.parse(list.body) as { csrf_token: string }).csrf_token;
  return { browser, csrf, cookie: browser.jar.header('/addons/installations/1/fetch/integrator') };
}

export interface ProxyCall {
  method?: string;
  url: string;
  headers?: [string, string][];
  body?: string | Buffer;
}

/** One call of the fetch proxy as the SDK's broker makes it. */
export function proxyFetch(
  baseUrl: string,
  session: { csrf: string; cookie: string },
  installation: string,
  side: 'service' | 'integrator',
  call: ProxyCall,
  overrides: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = {
    cookie: session.cookie,
    [CSRF_HEADER.toLowerCase()]: session.csrf,
    origin: baseUrl,
    [FETCH_HEADER.toLowerCase()]: encodeEnvelope({
      method: call.method ?? 'GET',
      url: call.url,
      headers: call.headers ?? [],
    }),
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return fetch(`${baseUrl}/addons/installations/${installation}/fetch/${side}`, {
    method: 'POST',
    headers,
    ...(signal ? { signal } : {}),
    ...(call.body !== undefined ? { body: typeof call.body === 'string' ? call.body : new Uint8Array(call.body) } : {}),
  });
}

/** The decoded UPSTREAM_HEADER of a relayed answer. */
export function upstreamOf(response: Response): UpstreamEnvelope {
  const header = response.headers.get(UPSTREAM_HEADER);
  if (!header) throw new Error(`no ${UPSTREAM_HEADER} (status ${response.status}: )`);
  return decodeEnvelope(header) as UpstreamEnvelope;
}

export interface TestIntegrator {
  url: string;
  server: Server;
  /** Refresh requests that reached the token endpoint. */
  refreshCount: number;
  /** Every request the API received: method, path, headers, body. */
  apiRequests: { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string }[];
  /** Issues a token pair (as a finished handshake would have). */
  issue(ttlSeconds?: number): { accessToken: string; refreshToken: string };
  /** Token endpoint behaviour: normal, failing (HTTP 503), hanging, or refusing grants. */
  mode: 'ok' | 'down' | 'hang' | 'invalid_grant';
  /** Lifetime (s) of refreshed access tokens; undefined → no expires_in. */
  ttlSeconds: number | undefined;
  /** Access tokens the API accepts. */
  validAccess: Set<string>;
  /** Paths of held /api/slow requests whose connection the proxy closed. */
  slowClosed: string[];
  /** Milliseconds the token endpoint takes to answer (widens the window in which refreshes could race). */
  tokenDelayMs: number;
  close(): Promise<void>;
}

/**
 * A small real integrator on 127.0.0.1: a token endpoint (refresh_token grant with rotation and
 * client_secret_post) and a Bearer-protected API. The template integrator is tested on its own; this
 * one exposes counters and failure switches.
 */
export async function startTestIntegrator(): Promise<TestIntegrator> {
  let counter = 0;
  const validRefresh = new Set<string>();
  const app = express();
  const state: TestIntegrator = {
    url: '',
    server: createServer(app),
    refreshCount: 0,
    apiRequests: [],
    mode: 'ok',
    ttlSeconds: 3600,
    validAccess: new Set(),
    tokenDelayMs: 0,
    slowClosed: [],
    issue() {
      counter += 1;
      const pair = { accessToken: `access-${counter}`, refreshToken: `refresh-${counter}` };
      state.validAccess.add(pair.accessToken);
      validRefresh.add(pair.refreshToken);
      return pair;
    },
    async close() {
      state.server.closeAllConnections();
      await new Promise<void>((resolve) => state.server.close(() => resolve()));
    },
  };
  app.post(
    '/oauth/token',
    express.urlencoded({ extended: false }),
    (req, _res, next) => void setTimeout(next, state.tokenDelayMs),
  );
  app.post('/oauth/token', (req, res) => {
    const body = req.body as Record<string, string>;
    if (body.grant_type !== 'refresh_token') return void res.status(400).json({ error: 'unsupported_grant_type' });
    state.refreshCount += 1;
    if (state.mode === 'hang') return;
    if (state.mode === 'down') return void res.status(503).type('text/plain').send('maintenance');
    if (body.client_id !== INTEGRATOR_CLIENT.id || body.client_secret !== INTEGRATOR_CLIENT.secret)
      return void res.status(401).json({ error: 'invalid_client' });
    if (state.mode === 'invalid_grant' || !validRefresh.has(body.refresh_token ?? ''))
      return void res.status(400).json({ error: 'invalid_grant' });
    validRefresh.delete(body.refresh_token!);
    const pair = state.issue();
    res.json({
      access_token: pair.accessToken,
      token_type: 'Bearer',
      refresh_token: pair.refreshToken,
      ...(state.ttlSeconds ? { expires_in: state.ttlSeconds } : {}),
    });
  });
  app.use('/api', express.text({ type: '*/*' }), (req, res, next) => {
    state.apiRequests.push({
      method: req.method,
      path: req.originalUrl,
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : '',
    });
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!token || !state.validAccess.has(token))
      return void res
        .status(401)
        .set('WWW-Authenticate', 'Bearer error="invalid_token"')
        .json({ error: 'invalid_token' });
    next();
  });
  app.get('/api/messages', (_req, res) => {
    res.set('Set-Cookie', 'tracking=1').append('X-Multi', 'a').append('X-Multi', 'b').json({ data: [] });
  });
  app.post('/api/messages', (req, res) => void res.status(201).json({ received: req.body }));
  app.get('/api/messages/:id', (req, res) => {
    if (req.params.id === 'missing') return void res.status(404).json({ error: 'not_found' });
    res.json({ id: req.params.id });
  });
  app.get('/api/redirect', (_req, res) => void res.redirect(302, 'http://evil.example/steal'));
  app.get('/api/slow', (req) => {
    req.on('close', () => state.slowClosed.push(req.originalUrl));
  });
  app.get(
    '/api/gzip',
    (_req, res) =>
      void res
        .set({ 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' })
        .send(gzipSync(JSON.stringify({ zipped: true }))),
  );
  app.get('/api/big', (_req, res) => void res.type('application/octet-stream').send(Buffer.alloc(64 * 1024, 1)));
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}
