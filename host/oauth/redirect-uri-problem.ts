/**
 * A redirect URI must be absolute, without a fragment, and (for web clients) https, or http only on
 * a loopback host; custom schemes serve native apps. @see RFC 6749 §3.1.2, RFC 8252 §7
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
    return `${uri} must use https (http is allowed for localhost only)`;
  if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)) return `${uri} uses a forbidden scheme`;
  return undefined;
}
