/**
 * The completion endpoint (the add-on config's `redirect_url`, step 2): the host sends the person there with
 * its code and state; the integrator must send them on to `{host}/addons/authorizations/{id}/advance` with
 * the state unchanged.
 */
import { CheckFailed } from '../doctor-checks.ts';
import { made, type DoctorSession } from '../doctor-session.ts';

/** completion.advance. */
export function checkCompletion(session: DoctorSession): Promise<void> {
  return session.run('completion.advance', async () => {
    const { completionUrl, advanceUrl } = session.options;
    const fix = `GET redirect_url must redirect (302/303) to ${advanceUrl} with the state it received, unchanged (spec, step 2).`;
    const state = made('doctor-state');
    const first = await visit(session, { code: made('doctor-code'), state });
    if (first.status === 404)
      throw new CheckFailed(`GET ${new URL(completionUrl).pathname} answered 404`, `Serve redirect_url: ${fix}`);
    if (first.location === undefined && first.status >= 500) {
      // An integrator that exchanges the host's code cannot exchange a made-up one; a refusal goes on without exchanging.
      const refused = await visit(session, { state, error: 'access_denied' });
      if (refused.location !== undefined) {
        const forwarded = describe(refused.location, state, advanceUrl, fix);
        return {
          detail: `${first.status} for a made-up code (exchanged with the host?); with error=access_denied ${forwarded}`,
        };
      }
    }
    if (first.location === undefined)
      throw new CheckFailed(`GET ${new URL(completionUrl).pathname} answered ${first.status} without a redirect`, fix);
    return { detail: describe(first.location, state, advanceUrl, fix) };
  });
}

async function visit(
  session: DoctorSession,
  params: Record<string, string>,
): Promise<{ status: number; location?: string }> {
  const url = new URL(session.options.completionUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await session.request(url.toString());
  await res.body?.cancel();
  const location = res.headers.get('location');
  if (res.status < 300 || res.status >= 400 || !location) return { status: res.status };
  return { status: res.status, location: new URL(location, url).toString() };
}

/** Checks the redirect's target and state; the pass detail, or a CheckFailed. */
function describe(location: string, state: string, advanceUrl: string, fix: string): string {
  const target = new URL(location);
  const expected = new URL(advanceUrl);
  if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
    throw new CheckFailed(`redirected to ${target.origin}${target.pathname}, not to the host's advance step`, fix);
  }
  const returned = target.searchParams.get('state');
  if (returned === null) throw new CheckFailed('redirected to the advance step without state', fix);
  if (returned !== state) throw new CheckFailed('redirected to the advance step with the state changed', fix);
  return `redirects to ${expected.pathname} with state unchanged`;
}
