/**
 * What an add-on may call on its integrator's API: the configured base URL's origin, and a method +
 * path template of the allow-list (`/api/messages/:id` — a `:name` segment matches exactly one
 * non-empty segment). Everything else is refused before any connection is made.
 */
import { PolicyError } from './addon-error.ts';
import type { IntegratorApiSettings } from './installations.ts';

/** Whether `path` (as sent, percent-encoded) matches a template. */
export function matchesTemplate(template: string, path: string): boolean {
  const want = template.replace(/\/$/, '').split('/');
  const have = path.replace(/\/$/, '').split('/');
  if (want.length !== have.length) return false;
  return want.every((segment, i) => {
    const actual = have[i]!;
    if (segment.startsWith(':')) return actual !== '' && !/%2f|%5c/i.test(actual) && actual !== '.' && actual !== '..';
    return segment === actual;
  });
}

/** The absolute upstream URL of an integrator call, or a `not_allowed` policy error. */
export function checkIntegratorCall(api: IntegratorApiSettings, method: string, rawUrl: string): URL {
  const base = new URL(api.base_url);
  let url: URL;
  try {
    url = new URL(rawUrl, base);
  } catch {
    throw new PolicyError('invalid_request', 'The URL cannot be parsed');
  }
  if (url.origin !== base.origin) throw new PolicyError('not_allowed', `Only ${base.origin} may be called through authenticatedIntegratorFetch`);
  if (url.username || url.password) throw new PolicyError('not_allowed', 'URLs with credentials are not allowed');
  url.hash = '';
  const allowed = api.allow.some((rule) => rule.method === method && matchesTemplate(rule.path, url.pathname));
  if (!allowed) throw new PolicyError('not_allowed', `${method} ${url.pathname} is not in the add-on's integrator_api allow-list`);
  return url;
}
