/**
 * The doctor against broken integrators: the real template integrator with one fault in front of it (see
 * test/support/integrator-faults.ts). Each fails its own row, and only the rows the fault touches.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { collectChecks, DOCTOR_CHECKS, type DoctorCheck, type DoctorCheckId } from '#host/cli/doctor/run-doctor.ts';
import {
  APP_ID,
  HOST_BASE_URL,
  createIntegratorTestDatabase,
  startTestIntegrator,
  type TestIntegrator,
} from '#integrator/test/support.ts';
import { optionsFor } from '../support/doctor-options.ts';
import { FAULTS, type FaultName } from '../support/integrator-faults.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let front: { url: string; server: Server };
/** The fault in front of the template integrator during the current test. */
let fault: Router | undefined;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
  const app = express();
  app.use((req, res, next) => (fault ? fault(req, res, next) : next()));
  app.use(t.integrator.app);
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});
afterAll(async () => {
  front.server.closeAllConnections();
  await new Promise<void>((resolve) => front.server.close(() => resolve()));
  await t.close();
  await store.drop();
});

const ADVANCE = `${HOST_BASE_URL}/addons/authorizations/${APP_ID}/advance`;
const COMPLETION_FIX = `GET redirect_url must redirect (302/303) to ${ADVANCE} with the state it received, unchanged (spec, step 2).`;
const FIELDS_FIX =
  'Answer with the RFC 6749 §5.1 field names: access_token, token_type ("Bearer"), expires_in (integer seconds), refresh_token and scope; the host reads exactly these.';
const EXPIRES_FIX = 'expires_in must be a positive JSON integer: the lifetime in seconds (RFC 6749 §5.1).';
const ISSUED =
  '{"access_token":"…","token_type":"Bearer","expires_in":3600,"refresh_token":"…","scope":"messages","user_id":"1"}';
const SKIP_CLIENT = {
  status: 'skip',
  detail: 'the token endpoint refused the client credentials (see token.exchange)',
  fix: 'Fix token.exchange first.',
} as const;
const SKIP_NO_TOKENS = {
  'refresh.grant': { status: 'skip', detail: 'no tokens were issued', fix: 'Fix token.exchange first.' },
  'refresh.rotation': { status: 'skip', detail: 'no refresh happened', fix: 'Fix refresh.grant first.' },
  'api.token': { status: 'skip', detail: 'no access token', fix: 'Fix token.exchange first.' },
} as const;

type Row = Omit<DoctorCheck, 'id'>;
/** Per fault: every row that does not pass, exactly; all other rows must pass. */
const EXPECTED: Record<FaultName, Partial<Record<DoctorCheckId, Row>>> = {
  completion404: {
    'completion.advance': {
      status: 'fail',
      detail: 'GET /addon/complete answered 404',
      fix: `Serve redirect_url: ${COMPLETION_FIX}`,
    },
  },
  completionDropsState: {
    'completion.advance': {
      status: 'fail',
      detail: 'redirected to the advance step without state',
      fix: COMPLETION_FIX,
    },
  },
  completionChangesState: {
    'completion.advance': {
      status: 'fail',
      detail: 'redirected to the advance step with the state changed',
      fix: COMPLETION_FIX,
    },
  },
  authorizeRedirectsToUnregistered: {
    'authorize.unregistered_redirect': {
      status: 'fail',
      detail: 'a redirect_uri on another origin: redirected to https://unregistered.doctor.invalid/callback',
      fix: 'Check client_id and the exact redirect_uri first and show an error page for a redirect_uri on another origin; never redirect to an unverified URI (RFC 6749 §4.1.2.1).',
    },
  },
  unknownClientRedirects: {
    'authorize.unknown_client': {
      status: 'fail',
      detail: 'an unknown client_id: redirected to http://host.test:4000/addons/authorizations/17',
      fix: 'Check client_id and the exact redirect_uri first and show an error page for an unknown client_id; never redirect to an unverified URI (RFC 6749 §4.1.2.1).',
    },
  },
  authorizeAltersState: {
    'authorize.state': {
      status: 'fail',
      detail: 'redirected with a code but the state changed',
      fix: 'Return the state parameter exactly as received (RFC 6749 §4.1.2); the host refuses any other.',
    },
  },
  tokenBasicOnly: {
    'token.exchange': {
      status: 'fail',
      detail:
        '401 {"error":"invalid_client","error_description":"use HTTP Basic"} with the credentials in the form body (client_secret_post, as the host sends them); HTTP Basic was accepted',
      fix: 'The host sends client_id and client_secret in the form body (client_secret_post, RFC 6749 §2.3.1): accept them there too.',
    },
    'token.bad_code': SKIP_CLIENT,
    'token.code_reuse': SKIP_CLIENT,
    'token.pkce': SKIP_CLIENT,
    ...SKIP_NO_TOKENS,
  },
  tokenCamelCase: {
    'token.exchange': {
      status: 'fail',
      detail: 'camelCased fields accessToken, tokenType, expiresIn, refreshToken',
      fix: FIELDS_FIX,
    },
    ...SKIP_NO_TOKENS,
  },
  tokenTypeMac: {
    'token.exchange': {
      status: 'fail',
      detail: 'token_type "mac"',
      fix: 'Return token_type "Bearer" (RFC 6750 §4); the host sends the token as a Bearer token.',
    },
    'refresh.grant': {
      status: 'fail',
      detail: 'token_type "mac"',
      fix: 'Return token_type "Bearer" (RFC 6750 §4); the host sends the token as a Bearer token.',
    },
  },
  expiresInString: {
    'token.exchange': { status: 'fail', detail: 'expires_in "3600"', fix: EXPIRES_FIX },
    'refresh.grant': { status: 'fail', detail: 'expires_in "3600"', fix: EXPIRES_FIX },
  },
  expiresInNegative: {
    'token.exchange': { status: 'fail', detail: 'expires_in -1', fix: EXPIRES_FIX },
    'refresh.grant': { status: 'fail', detail: 'expires_in -1', fix: EXPIRES_FIX },
  },
  noCacheControl: {
    'token.exchange': {
      status: 'fail',
      detail: 'Cache-Control (none)',
      fix: 'Send Cache-Control: no-store with tokens (RFC 6749 §5.1).',
    },
    'refresh.grant': {
      status: 'fail',
      detail: 'Cache-Control (none)',
      fix: 'Send Cache-Control: no-store with tokens (RFC 6749 §5.1).',
    },
  },
  badCode500: {
    'token.bad_code': {
      status: 'fail',
      detail: 'unknown code: answered 500 {"error":"server_error"}',
      fix: 'An unknown code must get 400 {"error":"invalid_grant"} (RFC 6749 §5.2), never tokens or a 5xx.',
    },
  },
  badCodeAccepted: {
    'token.bad_code': {
      status: 'fail',
      detail: 'unknown code: answered 200 {"access_token":"…","token_type":"Bearer"}',
      fix: 'An unknown code must get 400 {"error":"invalid_grant"} (RFC 6749 §5.2), never tokens or a 5xx.',
    },
  },
  wrongSecret400: {
    'token.wrong_secret': {
      status: 'fail',
      detail:
        'wrong client_secret: answered 400 {"error":"invalid_client","error_description":"client authentication failed"}',
      fix: 'A wrong client secret must get 401 {"error":"invalid_client"} (RFC 6749 §5.2).',
    },
  },
  codeReusable: {
    'token.code_reuse': {
      status: 'fail',
      detail: `code used twice: answered 200 ${ISSUED}`,
      fix: 'A code may be used once: a second use must get 400 {"error":"invalid_grant"} (RFC 6749 §4.1.2, §5.2).',
    },
  },
  refreshReplayAccepted: {
    'refresh.rotation': {
      status: 'fail',
      detail: `the old refresh_token, after its successor was used: answered 200 ${ISSUED}`,
      fix: 'Refuse a rotated refresh token once its successor was used, with 400 {"error":"invalid_grant"} (RFC 9700 §4.14.2); a short grace window for a lost response is fine.',
    },
  },
  pkceUnchecked: {
    'token.pkce': {
      status: 'fail',
      detail: `wrong code_verifier: answered 200 ${ISSUED}`,
      fix: 'Check code_verifier against the code_challenge of the authorization (RFC 7636 §4.6): a mismatch gets 400 {"error":"invalid_grant"}.',
    },
  },
  pkceNotSupported: {
    'token.pkce': {
      status: 'skip',
      detail:
        'the integrator does not use PKCE (a request without code_challenge and a wrong code_verifier were accepted)',
      fix: 'Support PKCE S256 (RFC 7636): the host sends code_challenge and code_verifier with every authorization.',
    },
  },
  noRefreshToken: {
    'refresh.grant': {
      status: 'fail',
      detail: 'expires_in 3600 but no refresh_token',
      fix: 'Issue a refresh_token with expiring access tokens: the host refreshes a few minutes before expires_in runs out (or omit expires_in if tokens never expire).',
    },
    'refresh.rotation': SKIP_NO_TOKENS['refresh.rotation'],
  },
  apiRefusesToken: {
    'api.token': {
      status: 'fail',
      detail: 'GET /api/messages 401',
      fix: 'The API must accept access tokens from the integrator’s own token endpoint on every allow-listed route.',
    },
  },
  apiAcceptsBadToken: {
    'api.bad_token': {
      status: 'fail',
      detail: 'GET /api/messages with a made-up token answered 200',
      fix: 'Answer an unknown or expired token with 401 and WWW-Authenticate: Bearer error="invalid_token" (RFC 6750 §3.1).',
    },
  },
  apiNoChallenge: {
    'api.bad_token': {
      status: 'fail',
      detail: '401 without WWW-Authenticate: Bearer (none)',
      fix: 'Answer an unknown or expired token with 401 and WWW-Authenticate: Bearer error="invalid_token" (RFC 6750 §3.1).',
    },
  },
};

describe('collectChecks() against broken integrators', () => {
  it.each(Object.keys(FAULTS) as FaultName[])(
    'fails exactly the rows of the fault, the others passing [%s]',
    async (name) => {
      fault = FAULTS[name]();
      let checks: DoctorCheck[];
      try {
        checks = await collectChecks(optionsFor(front.url));
      } finally {
        fault = undefined;
      }
      expect(checks.map((c) => c.id)).toEqual(Object.keys(DOCTOR_CHECKS));
      const expected = EXPECTED[name];
      expect(Object.fromEntries(checks.filter((c) => c.status !== 'pass').map(({ id, ...row }) => [id, row]))).toEqual(
        expected,
      );
    },
  );

  it('passes every row once the fault is gone [template integrator behind the same front]', async () => {
    const checks = await collectChecks(optionsFor(front.url));
    expect(checks.filter((c) => c.status !== 'pass')).toEqual([]);
  });
});
