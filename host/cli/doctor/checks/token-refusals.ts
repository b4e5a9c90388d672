/**
 * The token endpoint's refusals the host relies on: `invalid_grant` makes it ask the person to authorize
 * again, `invalid_client` names a configuration mistake.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
import { randomBytes } from 'node:crypto';
import { CheckFailed } from '../doctor-checks.ts';
import { made, quote, type DoctorSession, type ReadResponse } from '../doctor-session.ts';
import { authorizationRequest, authorizeAndConsent, type AuthorizationAttempt } from './authorization-request.ts';
import { codeParams, type Exchange } from './token-exchange.ts';

const SKIPPED_FOR_CLIENT = [
  'the token endpoint refused the client credentials (see token.exchange)',
  'Fix token.exchange first.',
] as const;
const CREDENTIALS_FIX = 'The client_id/client_secret of the add-on config are not accepted by the integrator.';

/** Fails unless the answer is 400 {"error":"invalid_grant"}. */
function expectInvalidGrant(r: ReadResponse, what: string, fix: string): string {
  if (r.res.status === 401 && r.json?.error === 'invalid_client')
    throw new CheckFailed(`401 invalid_client for the configured credentials`, CREDENTIALS_FIX);
  if (r.res.status !== 400 || r.json?.error !== 'invalid_grant')
    throw new CheckFailed(`${what}: answered ${r.res.status} ${quote(r)}`, fix);
  return `${what}: 400 invalid_grant`;
}

/** token.bad_code: a made-up code. */
export async function checkBadCode(session: DoctorSession, exchange: Exchange): Promise<void> {
  if (exchange.clientRefused) return void session.skip('token.bad_code', ...SKIPPED_FOR_CLIENT);
  await session.run('token.bad_code', async () => {
    const attempt = authorizationRequest(session);
    const r = await session.postToken(codeParams(made('doctor-code'), attempt));
    return {
      detail: expectInvalidGrant(
        r,
        'unknown code',
        'An unknown code must get 400 {"error":"invalid_grant"} (RFC 6749 §5.2), never tokens or a 5xx.',
      ),
    };
  });
}

/** token.wrong_secret: the config's client_id with another secret. */
export async function checkWrongSecret(session: DoctorSession): Promise<void> {
  await session.run('token.wrong_secret', async () => {
    const attempt = authorizationRequest(session);
    const r = await session.postToken(codeParams(made('doctor-code'), attempt), {
      clientSecret: `${session.options.clientSecret}-doctor-wrong`,
    });
    if (r.res.status !== 401 || r.json?.error !== 'invalid_client') {
      throw new CheckFailed(
        `wrong client_secret: answered ${r.res.status} ${quote(r)}`,
        'A wrong client secret must get 401 {"error":"invalid_client"} (RFC 6749 §5.2).',
      );
    }
    return { detail: 'wrong client_secret: 401 invalid_client' };
  });
}

/** token.code_reuse: the code token.exchange used, sent again. */
export async function checkCodeReuse(
  session: DoctorSession,
  code: string | undefined,
  attempt: AuthorizationAttempt,
  exchange: Exchange,
): Promise<void> {
  if (code === undefined)
    return void session.skip(
      'token.code_reuse',
      'no code was issued',
      'Fix the authorize step first (see authorize.state).',
    );
  if (exchange.clientRefused) return void session.skip('token.code_reuse', ...SKIPPED_FOR_CLIENT);
  await session.run('token.code_reuse', async () => {
    const r = await session.postToken(codeParams(code, attempt));
    return {
      detail: expectInvalidGrant(
        r,
        'code used twice',
        'A code may be used once: a second use must get 400 {"error":"invalid_grant"} (RFC 6749 §4.1.2, §5.2).',
      ),
    };
  });
}

/**
 * token.pkce: a fresh code sent with another code_verifier. Checked when the integrator uses PKCE: it refuses
 * an authorization request without code_challenge, or refuses the wrong verifier.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.6
 */
export async function checkPkce(session: DoctorSession, codeIssued: boolean, exchange: Exchange): Promise<void> {
  if (!codeIssued)
    return void session.skip('token.pkce', 'no code was issued', 'Fix the authorize step first (see authorize.state).');
  if (exchange.clientRefused) return void session.skip('token.pkce', ...SKIPPED_FOR_CLIENT);
  await session.run('token.pkce', async () => {
    const required = await requiresPkce(session);
    const attempt = authorizationRequest(session);
    const back = await authorizeAndConsent(session, attempt);
    const code = back.searchParams.get('code');
    if (!code)
      throw new CheckFailed(
        `no code: error=${back.searchParams.get('error')}`,
        'After Allow, redirect with a code (RFC 6749 §4.1.2).',
      );
    const r = await session.postToken(codeParams(code, attempt, randomBytes(32).toString('base64url')));
    if (r.res.status === 200 && !required) {
      return {
        status: 'skip',
        detail:
          'the integrator does not use PKCE (a request without code_challenge and a wrong code_verifier were accepted)',
        fix: 'Support PKCE S256 (RFC 7636): the host sends code_challenge and code_verifier with every authorization.',
      };
    }
    const fix =
      'Check code_verifier against the code_challenge of the authorization (RFC 7636 §4.6): a mismatch gets 400 {"error":"invalid_grant"}.';
    return { detail: expectInvalidGrant(r, 'wrong code_verifier', fix) };
  });
}

/** True when an authorization request without code_challenge is refused (an error page or an error redirect). */
async function requiresPkce(session: DoctorSession): Promise<boolean> {
  const { res } = await session.follow(authorizationRequest(session, { pkce: false }).url);
  await res.body?.cancel();
  return res.status !== 200;
}
