/** The rule for a subscription's URL, one definition for the API and the developer pages. */

/** What is said of a URL that breaks the rule. */
export const DELIVERY_URL_RULE = 'url must be an absolute http or https URL without credentials';

/** The URL as stored (normalized), or undefined unless it is an absolute http(s) URL without credentials. */
export function parseDeliveryUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password) return undefined;
  return parsed.href;
}
