import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@addon-kit/host/internal/db/database.ts';
import { collectChecks, runDoctor, type DoctorOptions } from '@addon-kit/host/internal/cli/doctor/run-doctor.ts';
import { CLIENT_ID, CLIENT_SECRET, createIntegratorTestDatabase, REDIRECT_URI, startTestIntegrator, USER, type TestIntegrator } from '@addon-kit/integrator-template/internal/test/support.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let broken: { url: string; server: Server };

function optionsFor(url: string, overrides: Partial<DoctorOptions> = {}): DoctorOptions {
  return {
    authorizeUrl: `${url}/oauth/authorize`,
    tokenUrl: `${url}/oauth/token`,
    apiBaseUrl: url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    login: { username: USER.username, password: USER.password },
    ...overrides,
  };
}

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
  // A deliberately broken integrator: its token endpoint hands out a token for any code.
  const app = express();
  app.post('/oauth/token', express.urlencoded({ extended: false }), (req, res, next) => {
    const body = req.body as Record<string, string>;
    if (body.grant_type === 'authorization_code' && body.code?.startsWith('doctor-') && req.get('authorization')) {
      const [, secret] = Buffer.from(req.get('authorization')!.slice(6), 'base64').toString().split(':');
      if (decodeURIComponent(secret ?? '') === CLIENT_SECRET) return res.json({ access_token: 'accepted-anything', token_type: 'Bearer' });
    }
    next();
  });
  // Everything else, including the refused requests above, is the real template integrator.
  app.use(t.integrator.app);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  broken = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});
afterAll(async () => {
  broken.server.closeAllConnections();
  await new Promise<void>((resolve) => broken.server.close(() => resolve()));
  await t.close();
  await store.drop();
});

describe('runDoctor()', () => {
  it('passes every check and returns 0 [template integrator]', async () => {
    let output = '';
    const code = await runDoctor(optionsFor(t.url), { write: (s: string) => (output += s) });
    expect(code).toBe(0);
    const lines = output.split('\n');
    expect(lines[0]).toMatch(/^Check\s+Result\s+Detail\s+Fix$/);
    expect(lines.slice(2, 8).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['authorize page reachable', 'PASS'],
      ['token endpoint refuses a bad code', 'PASS'],
      ['token endpoint refuses bad client credentials', 'PASS'],
      ['issues tokens', 'PASS'],
      ['refresh works', 'PASS'],
      ['API accepts the token', 'PASS'],
    ]);
    expect(output).toContain('All checks passed.');
  });

  it('reports each check with its detail [template integrator]', async () => {
    const checks = await collectChecks(optionsFor(t.url));
    expect(checks).toEqual([
      { name: 'authorize page reachable', status: 'pass', detail: '200 HTML page at /login' },
      { name: 'token endpoint refuses a bad code', status: 'pass', detail: '400 invalid_grant' },
      { name: 'token endpoint refuses bad client credentials', status: 'pass', detail: '401 invalid_client with WWW-Authenticate' },
      { name: 'issues tokens', status: 'pass', detail: 'access_token + refresh_token, expires_in 3600' },
      { name: 'refresh works', status: 'pass', detail: 'new access_token, refresh_token rotated' },
      { name: 'API accepts the token', status: 'pass', detail: 'GET /api/messages 200' },
    ]);
  });

  it('fails the bad-code row with its fix and returns 1 [integrator accepting any code]', async () => {
    let output = '';
    const code = await runDoctor(optionsFor(broken.url), { write: (s: string) => (output += s) });
    expect(code).toBe(1);
    const checks = await collectChecks(optionsFor(broken.url));
    expect(checks.find((c) => c.name === 'token endpoint refuses a bad code')).toEqual({
      name: 'token endpoint refuses a bad code',
      status: 'fail',
      detail: 'answered 200 {"access_token":"accepted-anything","token_type":"Bearer"}',
      fix: 'An unknown code must get 400 {"error":"invalid_grant"} (RFC 6749 §5.2).',
    });
    expect(checks.filter((c) => c.status !== 'pass').map((c) => c.name)).toEqual(['token endpoint refuses a bad code']);
    expect(output).toMatch(/token endpoint refuses a bad code\s+FAIL\s+.*An unknown code must get 400/);
    expect(output).toContain('1 check(s) failed.');
  });

  it('fails with a fix naming the credentials [wrong client secret in the add-on config]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { clientSecret: 'not-the-registered-secret' }));
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['authorize page reachable', 'pass'],
      ['token endpoint refuses a bad code', 'fail'],
      ['token endpoint refuses bad client credentials', 'pass'],
      ['issues tokens', 'fail'],
      ['refresh works', 'skip'],
      ['API accepts the token', 'skip'],
    ]);
    expect(checks[1]!.fix).toBe('The client_id/client_secret of the add-on config are not registered with the integrator.');
  });

  it('fails the authorize row [redirect URI not registered]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { redirectUri: 'http://elsewhere.test/cb' }));
    expect(checks[0]).toEqual({
      name: 'authorize page reachable',
      status: 'fail',
      detail: 'GET answered 400 text/html; charset=utf-8',
      fix: 'The integrator refused the request: register the client_id and the exact redirect URI.',
    });
  });

  it('skips token issuance without a test login [no login]', async () => {
    const checks = await collectChecks(optionsFor(t.url, { login: undefined }));
    expect(checks.slice(3)).toEqual([
      { name: 'issues tokens', status: 'skip', detail: 'no test login given', fix: 'Give the doctor a test user of the integrator to sign in with.' },
      { name: 'refresh works', status: 'skip', detail: 'no tokens were issued', fix: 'Fix token issuance first.' },
      { name: 'API accepts the token', status: 'skip', detail: 'no access token', fix: 'Fix token issuance first.' },
    ]);
  });

  it('fails every network check [integrator not running]', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    let output = '';
    expect(await runDoctor(optionsFor(url), { write: (s: string) => (output += s) })).toBe(1);
    const checks = await collectChecks(optionsFor(url));
    expect(checks[0]).toEqual({
      name: 'authorize page reachable',
      status: 'fail',
      detail: 'cannot connect (ECONNREFUSED)',
      fix: 'Start the integrator and check the URL in the add-on config.',
    });
  });
});
