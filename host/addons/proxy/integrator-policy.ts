/**
 * What an add-on may call on its integrator's API: the configured base URL's origin, and a method +
 * path template of the allow-list (`/api/messages/:id`). Everything else is refused before any
 * connection is made.
 *
 * The path is checked in one canonical form, on the URL exactly as the add-on sent it: WHATWG URL
 * parsing would turn `\` into `/`, resolve dot segments and drop tabs and newlines, so a check of the
 * parsed URL alone lets `/api\messages` or `/api/x/../messages` pass for `/api/messages`. A URL is
 * accepted only when
 * - it is absolute (`https://api.example/api/messages`) or an absolute path (`/api/messages`), with no
 *   backslash and no control character anywhere;
 * - its path holds RFC 3986 path characters only (others percent-encoded), no encoded separator
 *   (`%2F`, `%5C`) and no dot segment (`.`, `..`, or their `%2E` spellings);
 * - the path equals a template segment for segment: a literal segment exactly (case-sensitive, no
 *   percent-decoding), a `:name` segment one non-empty segment; a trailing slash makes another path
 *   unless the template ends with one too.
 * @see https://www.rfc-editor.org/rfc/rfc3986#section-3.3
 */
import { PolicyError } from '../addon-error.ts';
import type { IntegratorApiSettings } from '../registry/index.ts';

/** `scheme://authority` (or `//authority`) at the start of an absolute URL. */
const AUTHORITY = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/?#]*/;
/** RFC 3986 `pchar`s and `/`, percent-escapes complete. */
const PATH_CHARACTERS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
const ENCODED_SEPARATOR = /%2f|%5c/i;
/** `.` and `..`, also spelt with `%2E` (WHATWG treats those as dots too). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Whether `path` (as sent, percent-encoded) equals a template: literal segments exactly, `:name` one non-empty segment. */
export function matchesTemplate(template: string, path: string): boolean {
  const want = template.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return false;
  return want.every((segment, i) => (segment.startsWith(':') ? have[i] !== '' : segment === have[i]));
}

/**
 * The path of the URL as the add-on wrote it, refusing any form outside the canonical one; an absolute
 * URL without a path has the path `/`.
 */
export function canonicalPathOf(rawUrl: string): string {
  // Before anything else: WHATWG parsing would silently drop or rewrite these.
  // eslint-disable-next-line no-control-regex -- refusing control characters is this check's purpose
  if (/[\\\x00-\x1f\x7f]/.test(rawUrl))
    throw new PolicyError('not_allowed', 'Integrator URLs may not contain a backslash or a control character');
  const authority = AUTHORITY.exec(rawUrl);
  if (!authority && !rawUrl.startsWith('/'))
    throw new PolicyError('not_allowed', 'Integrator URLs must be absolute or start with /');
  const rest = authority ? rawUrl.slice(authority[0].length) : rawUrl;
  const end = rest.search(/[?#]/);
  const path = (end === -1 ? rest : rest.slice(0, end)) || '/';
  if (!PATH_CHARACTERS.test(path))
    throw new PolicyError('not_allowed', 'The path may hold RFC 3986 path characters only; percent-encode the others');
  if (ENCODED_SEPARATOR.test(path))
    throw new PolicyError('not_allowed', 'The path may not contain an encoded / or \\ (%2F, %5C)');
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment)))
    throw new PolicyError('not_allowed', 'The path may not contain a . or .. segment');
  return path;
}

/** `base_url`'s origin, per settings object (an installation's settings are kept between calls with it). */
const BASE_ORIGINS = new WeakMap<IntegratorApiSettings, string>();

function baseOriginOf(api: IntegratorApiSettings): string {
  let origin = BASE_ORIGINS.get(api);
  if (origin === undefined) {
    origin = new URL(api.base_url).origin;
    BASE_ORIGINS.set(api, origin);
  }
  return origin;
}

/** The absolute upstream URL of an integrator call, or a `not_allowed` policy error. */
export function checkIntegratorCall(api: IntegratorApiSettings, method: string, rawUrl: string): URL {
  const path = canonicalPathOf(rawUrl);
  const origin = baseOriginOf(api);
  // A path is resolved against the base URL; an absolute URL needs none (the base would only be parsed again).
  const url = URL.parse(rawUrl, rawUrl.startsWith('/') ? api.base_url : undefined);
  if (!url) throw new PolicyError('invalid_request', 'The URL cannot be parsed');
  if (url.origin !== origin)
    throw new PolicyError('not_allowed', `Only ${origin} may be called through authenticatedIntegratorFetch`);
  if (url.username || url.password) throw new PolicyError('not_allowed', 'URLs with credentials are not allowed');
  // The canonical form leaves WHATWG nothing to rewrite; should it still differ, the parsed path is not the one checked.
  if (url.pathname !== path)
    throw new PolicyError('not_allowed', 'The path changes when parsed; send it in canonical form');
  if (url.hash) url.hash = '';
  const allowed = api.allow.some((rule) => rule.method === method && matchesTemplate(rule.path, path));
  if (!allowed)
    throw new PolicyError('not_allowed', `${method} ${path} is not in the add-on's integrator_api allow-list`);
  return url;
}
