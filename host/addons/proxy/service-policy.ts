/**
 * What an add-on may call on the host through authenticatedFetch: host API URLs only (a relative URL
 * is resolved against the host's base URL), under a product API whose scope the add-on holds.
 * The host API then applies the person's current permissions to the call itself.
 */
import { PolicyError } from '../addon-error.ts';

/** Host API path prefixes and the add-on scope each needs (none: any OAuth application may call it). */
const PREFIXES: [prefix: string, scope: string | undefined][] = [
  ['/people/v2', 'people'],
  ['/api/v2', 'api'],
  ['/current/v2', undefined],
];

/** The URL of a service call (on the host's base URL), or a `not_allowed` policy error. */
export function checkServiceCall(baseUrl: string, scopes: readonly string[], rawUrl: string): URL {
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(rawUrl, base);
  } catch {
    throw new PolicyError('invalid_request', 'The URL cannot be parsed');
  }
  if (url.origin !== base.origin)
    throw new PolicyError('not_allowed', `authenticatedFetch calls the host API only (${base.origin})`);
  if (url.username || url.password) throw new PolicyError('not_allowed', 'URLs with credentials are not allowed');
  url.hash = '';
  const match = PREFIXES.find(([prefix]) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
  if (!match)
    throw new PolicyError('not_allowed', `${url.pathname} is not a host API path (/people/v2, /api/v2, /current/v2)`);
  const [prefix, scope] = match;
  if (scope && !scopes.includes(scope))
    throw new PolicyError('not_allowed', `${prefix} needs the ${scope} scope, which the add-on does not request`);
  return url;
}
