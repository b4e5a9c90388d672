/**
 * The integrator's API under `integrator_api.base_url`, called as the host's proxy calls it: the token as a
 * Bearer token on each allow-listed read route; a bad token gets the RFC 6750 challenge.
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
import { CheckFailed } from '../doctor-checks.ts';
import type { ApiRoute } from '../doctor-options.ts';
import { made, type DoctorSession } from '../doctor-session.ts';

/** The allow-listed reads the doctor can call: GET and HEAD routes without path parameters. */
export function readRoutes(session: DoctorSession): ApiRoute[] {
  const routes = session.options.apiRoutes ?? [{ method: 'GET', path: '/api/messages' }];
  return routes.filter((r) => (r.method === 'GET' || r.method === 'HEAD') && !r.path.includes(':'));
}

function call(session: DoctorSession, route: ApiRoute, token: string): Promise<Response> {
  const url = new URL(route.path.replace(/^\//, ''), session.options.apiBaseUrl.replace(/\/?$/, '/')).toString();
  return session.request(url, {
    method: route.method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
}

const NO_ROUTE = [
  'no allow-listed GET route without path parameters',
  'List a read route (GET, no :parameters) in integrator_api.allow so the doctor can call it.',
] as const;

/** api.token. */
export async function checkApiAcceptsToken(session: DoctorSession, accessToken: string | undefined): Promise<void> {
  if (!accessToken) return void session.skip('api.token', 'no access token', 'Fix token.exchange first.');
  const routes = readRoutes(session);
  if (routes.length === 0) return void session.skip('api.token', ...NO_ROUTE);
  await session.run('api.token', async () => {
    const seen: string[] = [];
    for (const route of routes) {
      const res = await call(session, route, accessToken);
      await res.body?.cancel();
      seen.push(`${route.method} ${route.path} ${res.status}`);
      if (res.status < 200 || res.status >= 300) {
        throw new CheckFailed(
          seen.join('; '),
          'The API must accept access tokens from the integrator’s own token endpoint on every allow-listed route.',
        );
      }
    }
    return { detail: seen.join('; ') };
  });
}

/** api.bad_token. */
export async function checkApiRefusesBadToken(session: DoctorSession): Promise<void> {
  const route = readRoutes(session)[0];
  if (!route) return void session.skip('api.bad_token', ...NO_ROUTE);
  await session.run('api.bad_token', async () => {
    const res = await call(session, route, made('doctor-invalid-token'));
    await res.body?.cancel();
    const challenge = res.headers.get('www-authenticate') ?? '';
    const fix =
      'Answer an unknown or expired token with 401 and WWW-Authenticate: Bearer error="invalid_token" (RFC 6750 §3.1).';
    if (res.status !== 401)
      throw new CheckFailed(`${route.method} ${route.path} with a made-up token answered ${res.status}`, fix);
    if (!/^Bearer\b/i.test(challenge))
      throw new CheckFailed(`401 without WWW-Authenticate: Bearer (${challenge || 'none'})`, fix);
    return { detail: `${route.method} ${route.path} with a made-up token: 401 WWW-Authenticate: Bearer` };
  });
}
