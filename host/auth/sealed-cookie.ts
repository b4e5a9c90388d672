/**
 * Opening an iron-session cookie that may have been sealed with an earlier session secret. iron-session seals and
 * opens with the secret it is given; a cookie it cannot open is then tried with each earlier secret
 * (`previousSessionSecrets`), so the secret can be rotated across several hosts without signing anyone out. A
 * cookie opened that way is sealed again with the current secret the next time the session is saved.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { getIronSession, unsealData, type IronSession, type SessionOptions } from 'iron-session';

/**
 * The value of the named cookie, when the request carries exactly one, plainly written (anything else is left to
 * iron-session's own parsing).
 */
export function cookieSeal(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  const values = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
  return values.length === 1 && /^[\w*~.-]+$/.test(values[0]!) ? values[0] : undefined;
}

/** The request's sealed cookie, opened with `options.password` or else with one of `previous`. */
export async function openSealedCookie<T extends object>(
  req: IncomingMessage,
  res: ServerResponse,
  options: SessionOptions,
  previous: readonly string[],
): Promise<IronSession<T>> {
  const session = await getIronSession<T>(req, res, options);
  if (previous.length === 0 || Object.keys(session).length > 0) return session;
  const seal = cookieSeal(req.headers, options.cookieName);
  if (seal === undefined) return session;
  for (const password of previous) {
    const data = await unsealData<T>(seal, { password, ...(options.ttl === undefined ? {} : { ttl: options.ttl }) });
    if (Object.keys(data).length > 0) return Object.assign(session, data);
  }
  return session;
}
