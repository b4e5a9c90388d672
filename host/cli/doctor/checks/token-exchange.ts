/**
 * token.exchange: the host's step-6 request (a fresh code, PKCE verifier, exact redirect_uri, client
 * credentials in the form body) must get a token response the host can use.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3
 */
import { CheckFailed, HOST_CLIENT_AUTH } from '../doctor-checks.ts';
import { quote, type DoctorSession } from '../doctor-session.ts';
import type { AuthorizationAttempt } from './authorization-request.ts';
import { describeTokens, tokenResponseProblems, type IssuedTokens } from './token-response.ts';

/** The exchange's outcome for later checks. */
export interface Exchange {
  tokens?: IssuedTokens;
  /** The token endpoint refused the host's client authentication: later token checks cannot tell anything. */
  clientRefused: boolean;
}

/** The form parameters of exchanging `code` issued for `attempt`. */
export function codeParams(
  code: string,
  attempt: AuthorizationAttempt,
  verifier = attempt.verifier,
): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: attempt.redirectUri, code_verifier: verifier };
}

/** Joins the problems of a row: what was seen, and each distinct fix. */
export function failWith(problems: { saw: string; fix: string }[]): { status: 'fail'; detail: string; fix: string } {
  return {
    status: 'fail',
    detail: problems.map((p) => p.saw).join('; '),
    fix: [...new Set(problems.map((p) => p.fix))].join(' '),
  };
}

export async function checkTokenExchange(
  session: DoctorSession,
  code: string | undefined,
  attempt: AuthorizationAttempt,
): Promise<Exchange> {
  if (code === undefined) {
    session.skip('token.exchange', 'no code was issued', 'Fix the authorize step first (see authorize.state).');
    return { clientRefused: false };
  }
  let clientRefused = false;
  const tokens = await session.run('token.exchange', async () => {
    const params = codeParams(code, attempt);
    const r = await session.postToken(params);
    if (r.res.status === 401 || r.json?.error === 'invalid_client') {
      clientRefused = true;
      const basic = await session.postToken(params, {}, true);
      if (basic.res.status === 200) {
        throw new CheckFailed(
          `${r.res.status} ${quote(r)} with the credentials in the form body (${HOST_CLIENT_AUTH}, as the host sends them); HTTP Basic was accepted`,
          `The host sends client_id and client_secret in the form body (${HOST_CLIENT_AUTH}, RFC 6749 §2.3.1): accept them there too.`,
        );
      }
      throw new CheckFailed(
        `${r.res.status} ${quote(r)} for the config's client credentials (sent as ${HOST_CLIENT_AUTH})`,
        `Register the client_id and client_secret of the add-on config with the integrator; the host sends them in the form body (${HOST_CLIENT_AUTH}).`,
      );
    }
    const { problems, tokens: issued } = tokenResponseProblems(r);
    if (problems.length > 0) return { ...failWith(problems), ...(issued ? { value: issued } : {}) };
    return { detail: `${describeTokens(issued!)} (client credentials as ${HOST_CLIENT_AUTH})`, value: issued };
  });
  return { clientRefused, ...(tokens ? { tokens } : {}) };
}
