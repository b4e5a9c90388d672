/** Drives the host's authorization flow as a browser would, and sets up OAuth applications and openid-client. */
import * as client from 'openid-client';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD } from './constants.ts';
import { parseForms, TestBrowser, type PageResponse } from './oauth-browser.ts';

export const REDIRECT_URI = 'https://client.example/callback';

export interface TestApplication {
  id: string;
  clientId: string;
  clientSecret?: string;
}

/** Creates an OAuth application in the demo organization. */
export async function createTestApplication(
  db: Database,
  options: { public?: boolean; name?: string; redirectUris?: string[] } = {},
): Promise<TestApplication> {
  const { rows } = await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'");
  const created = await createOAuthApplication(db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    organizationId: rows[0]!.id,
    name: options.name ?? 'Sample Integration',
    redirectUris: options.redirectUris ?? [REDIRECT_URI],
    public: options.public ?? false,
  });
  return {
    id: created.id,
    clientId: created.client_id,
    ...(created.client_secret ? { clientSecret: created.client_secret } : {}),
  };
}

/** openid-client configured by discovery against the host (plain HTTP allowed: tests run on 127.0.0.1). */
export async function discoverClient(
  baseUrl: string,
  app: TestApplication,
  auth: 'basic' | 'post' = 'basic',
): Promise<client.Configuration> {
  const authentication = app.clientSecret
    ? auth === 'basic'
      ? client.ClientSecretBasic(app.clientSecret)
      : client.ClientSecretPost(app.clientSecret)
    : client.None();
  return client.discovery(new URL(baseUrl), app.clientId, undefined, authentication, {
    execute: [client.allowInsecureRequests],
  });
}

export interface FlowOptions {
  email?: string;
  password?: string;
  decision?: 'Allow' | 'Deny';
  /** Called with each page the flow meets (assertions on the pages). */
  onPage?: (page: PageResponse, kind: PageKind) => void | Promise<void>;
  /** How to answer the account chooser. */
  chooser?: 'continue' | 'other';
}

/** The interaction pages: login, account chooser, consent, and the access_mode refusal. */
export type PageKind = 'login' | 'consent' | 'chooser' | 'refused';

/** Identifies the interaction page by its forms. */
export function pageKind(page: PageResponse): PageKind | undefined {
  const forms = parseForms(page.body);
  if (forms.some((f) => f.action.endsWith('/refused'))) return 'refused';
  if (forms.some((f) => f.action.endsWith('/select'))) return 'chooser';
  if (forms.some((f) => f.action.endsWith('/consent'))) return 'consent';
  if (forms.some((f) => 'password' in f.fields)) return 'login';
  return undefined;
}

/**
 * Opens `authorizationUrl` in `browser`, logs in, chooses, consents as told (a refusal page: its one
 * button), and returns the URL the host finally redirects to on the client's side (the redirect_uri
 * with code or error).
 */
export async function runAuthorization(
  browser: TestBrowser,
  authorizationUrl: URL,
  options: FlowOptions = {},
): Promise<URL> {
  let response = await browser.follow(authorizationUrl.href);
  for (let steps = 0; steps < 10; steps++) {
    if (response.location && new URL(response.location).origin !== new URL(browser.baseUrl).origin)
      return new URL(response.location);
    const kind = pageKind(response);
    if (!kind)
      throw new Error(`unexpected page (${response.status}) at ${response.url}: ${response.body.slice(0, 3000)}`);
    await options.onPage?.(response, kind);
    if (kind === 'login') {
      response = await browser.submit(response, {
        email: options.email ?? 'admin@demo.test',
        password: options.password ?? TEST_PASSWORD,
      });
    } else if (kind === 'chooser') {
      response =
        options.chooser === 'other'
          ? await browser.submit(
              response,
              { email: options.email ?? 'admin@demo.test', password: options.password ?? TEST_PASSWORD },
              { formIndex: 1 },
            )
          : await browser.submit(response, {}, { formIndex: 0 });
    } else if (kind === 'refused') {
      response = await browser.submit(response, {});
    } else {
      response = await browser.submit(response, {}, { button: options.decision ?? 'Allow' });
    }
    if (response.status === 401) throw new Error(`login failed at ${response.url}`);
    response = await browser.follow(response.url, response);
  }
  throw new Error('authorization did not finish');
}

/** A full code flow (with PKCE unless told otherwise) → the token response. */
export async function obtainTokens(
  browser: TestBrowser,
  config: client.Configuration,
  options: FlowOptions & { scope?: string; pkce?: boolean; nonce?: string; extra?: Record<string, string> } = {},
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const pkce = options.pkce ?? true;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: options.scope ?? 'openid people',
    state,
    ...(options.nonce ? { nonce: options.nonce } : {}),
    ...(pkce
      ? { code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
      : {}),
    ...options.extra,
  });
  const callback = await runAuthorization(browser, url, options);
  return client.authorizationCodeGrant(config, callback, {
    expectedState: state,
    ...(pkce ? { pkceCodeVerifier: verifier } : {}),
    ...(options.nonce ? { expectedNonce: options.nonce } : {}),
    idTokenExpected: (options.scope ?? 'openid people').split(' ').includes('openid'),
  });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A raw POST to an OAuth endpoint (exact statuses, headers and bodies), as a form or as JSON. */
export async function postOAuth(
  baseUrl: string,
  path: string,
  params: Record<string, string>,
  options: { json?: boolean; basic?: { id: string; secret: string } } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.basic.id)}:${encodeURIComponent(options.basic.secret)}`).toString('base64')}`;
  headers['content-type'] = options.json ? 'application/json' : 'application/x-www-form-urlencoded';
  const body = options.json ? JSON.stringify(params) : new URLSearchParams(params).toString();
  const response = await fetch(new URL(path, baseUrl), { method: 'POST', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/** Client credentials as body fields. */
export function credentials(app: TestApplication): Record<string, string> {
  return { client_id: app.clientId, ...(app.clientSecret ? { client_secret: app.clientSecret } : {}) };
}

/** Runs the browser part of a code flow and returns the code and the verifier used. */
export async function obtainCode(
  browser: TestBrowser,
  app: TestApplication,
  options: FlowOptions & { scope?: string; pkce?: boolean; redirectUri?: string; extra?: Record<string, string> } = {},
): Promise<{ code: string; verifier: string; callback: URL }> {
  const verifier = client.randomPKCECodeVerifier();
  const url = new URL('/oauth/authorize', browser.baseUrl);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    response_type: 'code',
    scope: options.scope ?? 'openid people',
    state: 'state-1',
    ...((options.pkce ?? true)
      ? { code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
      : {}),
    ...options.extra,
  }).toString();
  const callback = await runAuthorization(browser, url, options);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  return { code, verifier, callback };
}
