/**
 * The authorize endpoint (step 4): the page, the refusal of an unknown client or redirect URI without a
 * redirect (RFC 6749 §4.1.2.1), and a consent that returns a code with the state unchanged (§4.1.2).
 */
import { CheckFailed } from '../doctor-checks.ts';
import { made, type DoctorSession } from '../doctor-session.ts';
import {
  authorizationRequest,
  authorizeAndConsent,
  isRedirectUri,
  type AuthorizationAttempt,
  type AuthorizePage,
} from './authorization-request.ts';

/** authorize.page: GET authorize_url answers 200 with HTML (a login or consent page). */
export function checkAuthorizePage(
  session: DoctorSession,
  attempt: AuthorizationAttempt,
): Promise<AuthorizePage | undefined> {
  return session.run('authorize.page', async () => {
    const { res, url } = await session.follow(attempt.url);
    const location = res.headers.get('location');
    if (location && isRedirectUri(location, attempt.redirectUri)) {
      await res.body?.cancel();
      const error = new URL(location).searchParams.get('error');
      throw new CheckFailed(
        `redirected back with error=${error}`,
        'Register the client_id, the redirect URI and the scopes of the add-on config with the integrator.',
      );
    }
    if (res.status !== 200 || !(res.headers.get('content-type') ?? '').includes('text/html')) {
      await res.body?.cancel();
      throw new CheckFailed(
        `GET answered ${res.status} ${res.headers.get('content-type') ?? ''}`.trim(),
        fixForAuthorizeStatus(res.status),
      );
    }
    return { detail: `200 HTML page at ${new URL(url).pathname}`, value: { html: await res.text(), url } };
  });
}

/** authorize.state: sign in, allow, and get back to redirect_uri with a code and the state unchanged. */
export async function checkConsentReturnsState(
  session: DoctorSession,
  attempt: AuthorizationAttempt,
  page: AuthorizePage | undefined,
): Promise<string | undefined> {
  if (!page)
    return session.skip('authorize.state', 'the authorize page was not reachable', 'Fix the authorize page first.');
  if (!session.options.login) {
    return session.skip(
      'authorize.state',
      'no test login given',
      'Give the doctor a test user of the integrator (--username/--password).',
    );
  }
  return session.run('authorize.state', async () => {
    const back = await authorizeAndConsent(session, attempt, page);
    const code = back.searchParams.get('code');
    if (!code)
      throw new CheckFailed(
        `no code: error=${back.searchParams.get('error')}`,
        'After Allow, redirect with a code (RFC 6749 §4.1.2).',
      );
    const state = back.searchParams.get('state');
    if (state !== attempt.state) {
      // The code still serves the token checks: the state is this row's fault alone.
      return {
        status: 'fail',
        detail:
          state === null ? 'redirected with a code but without state' : 'redirected with a code but the state changed',
        fix: 'Return the state parameter exactly as received (RFC 6749 §4.1.2); the host refuses any other.',
        value: code,
      };
    }
    return { detail: 'redirected to redirect_uri with a code and state unchanged', value: code };
  });
}

/** authorize.unknown_client: a client_id nobody registered gets an error page. */
export function checkUnknownClient(session: DoctorSession): Promise<void> {
  return session.run('authorize.unknown_client', async () => {
    const attempt = authorizationRequest(session, { clientId: made('doctor-unknown-client') });
    return { detail: await expectErrorPage(session, attempt, 'an unknown client_id') };
  });
}

/** authorize.unregistered_redirect: another origin, and the registered URI with a path added, get an error page. */
export function checkUnregisteredRedirect(session: DoctorSession): Promise<void> {
  return session.run('authorize.unregistered_redirect', async () => {
    const details: string[] = [];
    const tries = [
      ['a redirect_uri on another origin', 'https://unregistered.doctor.invalid/callback'],
      ['the registered redirect_uri with a path added', `${session.options.redirectUri}/doctor-unregistered`],
    ] as const;
    for (const [what, redirectUri] of tries)
      details.push(await expectErrorPage(session, authorizationRequest(session, { redirectUri }), what));
    return { detail: details.join('; ') };
  });
}

/** The request must end on this server with a 4xx page: no redirect anywhere, no page that goes on. */
async function expectErrorPage(session: DoctorSession, attempt: AuthorizationAttempt, what: string): Promise<string> {
  const { res } = await session.follow(attempt.url);
  await res.body?.cancel();
  const location = res.headers.get('location');
  const fix = `Check client_id and the exact redirect_uri first and show an error page for ${what}; never redirect to an unverified URI (RFC 6749 §4.1.2.1).`;
  if (location) {
    const target = new URL(location, attempt.url);
    throw new CheckFailed(`${what}: redirected to ${target.origin}${target.pathname}`, fix);
  }
  if (res.status < 400 || res.status >= 500)
    throw new CheckFailed(`${what}: answered ${res.status} instead of an error page`, fix);
  return `${res.status} error page for ${what}`;
}

function fixForAuthorizeStatus(status: number): string {
  if (status === 404) return 'authorize_url in the add-on config does not point at the integrator’s authorize page.';
  if (status === 400) return 'The integrator refused the request: register the client_id and the exact redirect URI.';
  return 'GET authorize_url must answer with an HTML login or consent page.';
}
