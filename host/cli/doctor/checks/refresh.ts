/**
 * Refresh: the host refreshes a few minutes before `expires_in` runs out (spec, add-on handshake rules), so a
 * refresh token is required with expiring tokens; a rotated refresh token must not work for ever.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2
 */
import { CheckFailed } from '../doctor-checks.ts';
import { quote, type DoctorSession } from '../doctor-session.ts';
import type { Exchange } from './token-exchange.ts';
import { failWith } from './token-exchange.ts';
import { describeTokens, tokenResponseProblems, type IssuedTokens } from './token-response.ts';

const refresh = (session: DoctorSession, refreshToken: string) =>
  session.postToken({ grant_type: 'refresh_token', refresh_token: refreshToken });

/** Without a new refresh_token the host keeps the old one. */
const keepRefreshToken = (tokens: IssuedTokens, previous: string): IssuedTokens => ({
  ...tokens,
  refresh_token: tokens.refresh_token ?? previous,
});

/** refresh.grant: returns the refreshed tokens (or undefined). */
export async function checkRefresh(session: DoctorSession, exchange: Exchange): Promise<IssuedTokens | undefined> {
  const tokens = exchange.tokens;
  if (!tokens) return session.skip('refresh.grant', 'no tokens were issued', 'Fix token.exchange first.');
  return session.run('refresh.grant', async () => {
    const refreshToken = tokens.refresh_token;
    if (!refreshToken) {
      if (tokens.expires_in === undefined)
        return { detail: 'no expires_in and no refresh_token: the token does not expire' };
      throw new CheckFailed(
        `expires_in ${JSON.stringify(tokens.expires_in)} but no refresh_token`,
        'Issue a refresh_token with expiring access tokens: the host refreshes a few minutes before expires_in runs out (or omit expires_in if tokens never expire).',
      );
    }
    const r = await refresh(session, refreshToken);
    const { problems, tokens: refreshed } = tokenResponseProblems(r);
    if (refreshed && refreshed.access_token === tokens.access_token) {
      problems.push({
        saw: 'the same access_token came back',
        fix: 'grant_type=refresh_token must issue a new access token (RFC 6749 §6).',
      });
    }
    if (problems.length > 0) {
      if (r.res.status !== 200)
        problems[0]!.fix =
          'grant_type=refresh_token with the refresh token and the client credentials must return a new access_token (RFC 6749 §6).';
      // Tokens that came despite the problems still serve the later checks.
      return { ...failWith(problems), ...(refreshed ? { value: keepRefreshToken(refreshed, refreshToken) } : {}) };
    }
    const rotated = refreshed!.refresh_token !== undefined && refreshed!.refresh_token !== refreshToken;
    const detail = `new ${describeTokens(refreshed!)}${rotated ? ', refresh_token rotated' : ''}`;
    return { detail, value: keepRefreshToken(refreshed!, refreshToken) };
  });
}

/** refresh.rotation: after the new refresh token was used, the old one is refused. */
export async function checkRotation(
  session: DoctorSession,
  original: IssuedTokens | undefined,
  refreshed: IssuedTokens | undefined,
): Promise<void> {
  if (!original?.refresh_token || !refreshed)
    return void session.skip('refresh.rotation', 'no refresh happened', 'Fix refresh.grant first.');
  const old = original.refresh_token;
  const next = refreshed.refresh_token!;
  await session.run('refresh.rotation', async () => {
    if (next === old) return { detail: 'refresh_token not rotated (the same one stays valid)' };
    const successor = await refresh(session, next);
    if (successor.res.status !== 200 || typeof successor.json?.access_token !== 'string') {
      throw new CheckFailed(
        `refreshing with the rotated refresh_token answered ${successor.res.status} ${quote(successor)}`,
        'The refresh_token a refresh returned must work for the next refresh (RFC 6749 §6).',
      );
    }
    const replay = await refresh(session, old);
    if (replay.res.status !== 400 || replay.json?.error !== 'invalid_grant') {
      throw new CheckFailed(
        `the old refresh_token, after its successor was used: answered ${replay.res.status} ${quote(replay)}`,
        'Refuse a rotated refresh token once its successor was used, with 400 {"error":"invalid_grant"} (RFC 9700 §4.14.2); a short grace window for a lost response is fine.',
      );
    }
    return { detail: 'old refresh_token refused after its successor was used: 400 invalid_grant' };
  });
}
