/**
 * Where the interaction pages' forms may lead: the host, then (after the provider's redirects) one of the
 * client's registered redirect URIs. Browsers check CSP form-action along the redirect chain of a form
 * submission, so the consent and login pages allow exactly those origins (a custom-scheme redirect of
 * a native app by its scheme; a native app's loopback redirect on any port, as the OAuth server matches it).
 * @see https://www.w3.org/TR/CSP3/#directive-form-action
 */

/** Hosts whose http redirect URIs a native client may use on any port. @see RFC 8252 §7.3 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * CSP sources for `form-action`: `'self'` plus the origin (or scheme) of each redirect URI — for a native client's
 * loopback http URI, its host on any port (`http://127.0.0.1:*`).
 */
export function formTargets(redirectUris: readonly string[], native = false): string[] {
  const sources = new Set<string>(["'self'"]);
  for (const uri of redirectUris) {
    try {
      const url = new URL(uri);
      // Only characters a CSP source may hold; anything else is left out rather than breaking the policy.
      const loopback = native && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
      const source = loopback ? `http://${url.hostname}:*` : /^https?:$/.test(url.protocol) ? url.origin : url.protocol;
      if (/^[A-Za-z0-9+.\-:/[\]*]+$/.test(source)) sources.add(source);
    } catch {
      // An unparsable URI is not registered by the host; skip it.
    }
  }
  return [...sources];
}
