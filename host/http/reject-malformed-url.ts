/**
 * Refuses a request whose path or query string is not correctly percent-encoded (a `%` not followed by
 * two hex digits, or escapes that are not UTF-8) with 400, before any router or oidc-provider decodes it
 * and throws. One check at the door, so no route can turn such a URL into a server error.
 * @see RFC 3986 §2.1
 */
import type { RequestHandler } from 'express';
import { MalformedUrlError } from '../errors.ts';

function decodes(component: string): boolean {
  try {
    decodeURIComponent(component);
    return true;
  } catch {
    return false;
  }
}

/** Whether every `%` escape of the URL's path and query string decodes to UTF-8 text. */
export function isWellEncodedUrl(url: string): boolean {
  if (!url.includes('%')) return true;
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const query = at === -1 ? '' : url.slice(at + 1);
  return decodes(path) && query.split(/[&=]/).every((part) => decodes(part.replace(/\+/g, ' ')));
}

/** 400 for a URL that is not correctly percent-encoded. */
export const rejectMalformedUrl: RequestHandler = (req, _res, next) => {
  if (!isWellEncodedUrl(req.url)) throw new MalformedUrlError();
  next();
};
