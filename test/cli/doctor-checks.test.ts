import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { collectChecks, runDoctor, DOCTOR_CHECKS } from '#host/cli/doctor/run-doctor.ts';
import {
  APP_ID,
  createIntegratorTestDatabase,
  startTestIntegrator,
  type TestIntegrator,
} from '#integrator/test/support.ts';
import { optionsFor } from '../support/doctor-options.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

/** The template integrator's rows: every check passes. */
const ALL_PASS = [
  { id: 'authorize.page', status: 'pass', detail: '200 HTML page at /login' },
  { id: 'authorize.unknown_client', status: 'pass', detail: '400 error page for an unknown client_id' },
  {
    id: 'authorize.unregistered_redirect',
    status: 'pass',
    detail:
      '400 error page for a redirect_uri on another origin; 400 error page for the registered redirect_uri with a path added',
  },
  {
    id: 'completion.advance',
    status: 'pass',
    detail: `redirects to /addons/authorizations/${APP_ID}/advance with state unchanged`,
  },
  { id: 'authorize.state', status: 'pass', detail: 'redirected to redirect_uri with a code and state unchanged' },
  {
    id: 'token.exchange',
    status: 'pass',
    detail: 'access_token + refresh_token, expires_in 3600 (client credentials as client_secret_post)',
  },
  { id: 'token.bad_code', status: 'pass', detail: 'unknown code: 400 invalid_grant' },
  { id: 'token.wrong_secret', status: 'pass', detail: 'wrong client_secret: 401 invalid_client' },
  { id: 'token.code_reuse', status: 'pass', detail: 'code used twice: 400 invalid_grant' },
  { id: 'token.pkce', status: 'pass', detail: 'wrong code_verifier: 400 invalid_grant' },
  {
    id: 'refresh.grant',
    status: 'pass',
    detail: 'new access_token + refresh_token, expires_in 3600, refresh_token rotated',
  },
  {
    id: 'refresh.rotation',
    status: 'pass',
    detail: 'old refresh_token refused after its successor was used: 400 invalid_grant',
  },
  { id: 'api.token', status: 'pass', detail: 'GET /api/messages 200' },
  {
    id: 'api.bad_token',
    status: 'pass',
    detail: 'GET /api/messages with a made-up token: 401 WWW-Authenticate: Bearer',
  },
  { id: 'config.urls', status: 'pass', detail: '4 URLs resolve (http allowed in development)' },
];

/** The rows that did not pass, as [id, status]. */
const notPassing = (checks: { id: string; status: string }[]) =>
  checks.filter((c) => c.status !== 'pass').map((c) => [c.id, c.status]);

describe('collectChecks()', () => {
  it('passes every row, in the order of DOCTOR_CHECKS [template integrator]', async () => {
    const checks = await collectChecks(optionsFor(t.url));
    expect(checks).toEqual(ALL_PASS);
    expect(checks.map((c) => c.id)).toEqual(Object.keys(DOCTOR_CHECKS));
  });

  it('fails token.exchange naming the credentials and skips what needs them [wrong client secret in the add-on config]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { clientSecret: 'not-the-registered-secret' }));
    expect(notPassing(checks)).toEqual([
      ['token.exchange', 'fail'],
      ['token.bad_code', 'skip'],
      ['token.code_reuse', 'skip'],
      ['token.pkce', 'skip'],
      ['refresh.grant', 'skip'],
      ['refresh.rotation', 'skip'],
      ['api.token', 'skip'],
    ]);
    expect(checks.find((c) => c.id === 'token.exchange')).toEqual({
      id: 'token.exchange',
      status: 'fail',
      detail:
        '401 {"error":"invalid_client","error_description":"client authentication failed"} for the config\'s client credentials (sent as client_secret_post)',
      fix: 'Register the client_id and client_secret of the add-on config with the integrator; the host sends them in the form body (client_secret_post).',
    });
  });

  it('fails authorize.page and skips the flow [redirect URI not registered]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { redirectUri: 'http://elsewhere.test/cb' }));
    expect(checks[0]).toEqual({
      id: 'authorize.page',
      status: 'fail',
      detail: 'GET answered 400 text/html; charset=utf-8',
      fix: 'The integrator refused the request: register the client_id and the exact redirect URI.',
    });
    expect(notPassing(checks)).toEqual([
      ['authorize.page', 'fail'],
      ['authorize.state', 'skip'],
      ['token.exchange', 'skip'],
      ['token.code_reuse', 'skip'],
      ['token.pkce', 'skip'],
      ['refresh.grant', 'skip'],
      ['refresh.rotation', 'skip'],
      ['api.token', 'skip'],
    ]);
  });

  it('skips the sign-in rows and runs the rest [no test login]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { login: undefined }));
    expect(notPassing(checks)).toEqual([
      ['authorize.state', 'skip'],
      ['token.exchange', 'skip'],
      ['token.code_reuse', 'skip'],
      ['token.pkce', 'skip'],
      ['refresh.grant', 'skip'],
      ['refresh.rotation', 'skip'],
      ['api.token', 'skip'],
    ]);
    expect(checks.find((c) => c.id === 'authorize.state')).toEqual({
      id: 'authorize.state',
      status: 'skip',
      detail: 'no test login given',
      fix: 'Give the doctor a test user of the integrator (--username/--password).',
    });
  });

  it('fails config.urls for every http URL, the rest passing [beta environment on http]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { environment: 'beta' }));
    expect(notPassing(checks)).toEqual([['config.urls', 'fail']]);
    expect(checks.at(-1)).toEqual({
      id: 'config.urls',
      status: 'fail',
      detail:
        'integrator_oauth.authorize_url uses http; integrator_oauth.token_url uses http; integrator_oauth.redirect_url uses http; integrator_api.base_url uses http',
      fix: 'Use https URLs outside development whose host names resolve (beta config).',
    });
  });

  it('checks the webhook_url too when the environment declares one [webhook_url]', async () => {
    const webhookUrl = `${t.url}/webhooks/addon-kit`;
    const development = await collectChecks(optionsFor(t.url, { webhookUrl }));
    expect(development.at(-1)).toEqual({
      id: 'config.urls',
      status: 'pass',
      detail: '5 URLs resolve (http allowed in development)',
    });
    const beta = await collectChecks(optionsFor(t.url, { environment: 'beta', webhookUrl }));
    expect(beta.at(-1)).toMatchObject({ id: 'config.urls', status: 'fail' });
    expect(beta.at(-1)!.detail).toMatch(/; webhook_url uses http$/);
  });

  it('fails config.urls and completion.advance for a host name that does not resolve [redirect_url on .invalid]', async () => {
    const checks = await collectChecks(
      optionsFor(t.url, { completionUrl: 'http://integrator.doctor.invalid/addon/complete' }),
    );
    expect(notPassing(checks)).toEqual([
      ['completion.advance', 'fail'],
      ['config.urls', 'fail'],
    ]);
    expect(checks.at(-1)!.detail).toBe(
      'integrator_oauth.redirect_url: integrator.doctor.invalid does not resolve (ENOTFOUND)',
    );
    expect(checks.find((c) => c.id === 'completion.advance')!.detail).toBe('cannot connect (ENOTFOUND)');
  });

  it('passes completion.advance through the refusal path when the made-up code cannot be exchanged [exchangeHostCode, host unreachable]', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const hostTokenUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/oauth/token`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const exchanging = await startTestIntegrator(store.db, {
      exchangeHostCode: true,
      hostClient: { clientId: 'host-app', clientSecret: 'host-app-secret' },
      hostTokenUrl,
    });
    try {
      const checks = await collectChecks(optionsFor(exchanging.url));
      expect(notPassing(checks)).toEqual([]);
      expect(checks.find((c) => c.id === 'completion.advance')!.detail).toBe(
        `502 for a made-up code (exchanged with the host?); with error=access_denied redirects to /addons/authorizations/${APP_ID}/advance with state unchanged`,
      );
    } finally {
      await exchanging.close();
    }
  });

  it('fails every network row [integrator not running]', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const checks = await collectChecks(optionsFor(url));
    expect(checks[0]).toEqual({
      id: 'authorize.page',
      status: 'fail',
      detail: 'cannot connect (ECONNREFUSED)',
      fix: 'Start the integrator and check the URL in the add-on config.',
    });
    expect(checks.filter((c) => c.status === 'pass').map((c) => c.id)).toEqual(['config.urls']);
  });
});

describe('runDoctor()', () => {
  it('prints the table and returns 0 [template integrator]', async () => {
    let output = '';
    const code = await runDoctor(optionsFor(t.url), { write: (s: string) => (output += s) });
    expect(code).toBe(0);
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^Check\s+Result\s+Saw\s+Fix$/);
    expect(lines.slice(2, 2 + ALL_PASS.length).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual(
      ALL_PASS.map((c) => [c.id, 'PASS', c.detail]),
    );
    expect(lines.slice(2 + ALL_PASS.length)).toEqual(['', 'All checks passed.', '']);
  });

  it('prints the JSON report and returns 1 with a failing row [--json, beta environment on http]', async () => {
    let output = '';
    const code = await runDoctor(
      optionsFor(t.url, { environment: 'beta' }),
      { write: (s: string) => (output += s) },
      'json',
    );
    expect(code).toBe(1);
    const report = JSON.parse(output) as {
      ok: boolean;
      checks: { id: string; checks: string; status: string; detail: string; fix?: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.map((c) => c.id)).toEqual(Object.keys(DOCTOR_CHECKS));
    expect(report.checks[0]).toEqual({
      id: 'authorize.page',
      checks: DOCTOR_CHECKS['authorize.page'],
      status: 'pass',
      detail: '200 HTML page at /login',
    });
    expect(report.checks.at(-1)).toEqual({
      id: 'config.urls',
      checks: DOCTOR_CHECKS['config.urls'],
      status: 'fail',
      detail:
        'integrator_oauth.authorize_url uses http; integrator_oauth.token_url uses http; integrator_oauth.redirect_url uses http; integrator_api.base_url uses http',
      fix: 'Use https URLs outside development whose host names resolve (beta config).',
    });
  });
});

describe('integrator-template/README.md', () => {
  it('lists every doctor row, in the order of the table', async () => {
    const readme = await readFile(new URL('../../integrator-template/README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Checking it: `addon-kit doctor`'));
    const next = section.indexOf('\n## ', 1);
    const rows = [...(next < 0 ? section : section.slice(0, next)).matchAll(/^\| `([a-z_.]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(Object.keys(DOCTOR_CHECKS));
  });
});
