/**
 * What the host needs of a successful token response (RFC 6749 §5.1), read the way openid-client reads it.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
import { quote, type ReadResponse } from '../doctor-session.ts';

/** The tokens later checks use. */
export interface IssuedTokens {
  access_token: string;
  refresh_token?: string;
  expires_in?: unknown;
}

/** One thing wrong with a response: what was seen and how to fix it. */
export interface Problem {
  saw: string;
  fix: string;
}

const FIELDS_FIX =
  'Answer with the RFC 6749 §5.1 field names: access_token, token_type ("Bearer"), expires_in (integer seconds), ' +
  'refresh_token and scope; the host reads exactly these.';
const CAMEL = /^(accessToken|tokenType|expiresIn|refreshToken|idToken)$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * The problems of a 200 token response (status, Content-Type, fields, Cache-Control), and the tokens when an
 * access_token came (so later checks can go on even if something else is wrong).
 */
export function tokenResponseProblems(r: ReadResponse): { problems: Problem[]; tokens?: IssuedTokens } {
  const { res, json } = r;
  if (res.status !== 200) {
    return {
      problems: [
        {
          saw: `answered ${res.status} ${quote(r)}`,
          fix: 'Exchange a valid request for tokens with 200 (RFC 6749 §5.1).',
        },
      ],
    };
  }
  const problems: Problem[] = [];
  const type = res.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    problems.push({
      saw: `Content-Type ${type || '(none)'}`,
      fix: 'Send the token response as Content-Type: application/json.',
    });
  if (!json) return { problems: [...problems, { saw: 'the body is not a JSON object', fix: FIELDS_FIX }] };
  if (typeof json.access_token !== 'string' || json.access_token === '') {
    const camel = Object.keys(json).filter((k) => CAMEL.test(k));
    const saw =
      camel.length > 0
        ? `camelCased fields ${camel.join(', ')}`
        : `no access_token (fields: ${Object.keys(json).join(', ') || 'none'})`;
    return { problems: [...problems, { saw, fix: FIELDS_FIX }] };
  }
  if (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer') {
    problems.push({
      saw: `token_type ${JSON.stringify(json.token_type ?? null)}`,
      fix: 'Return token_type "Bearer" (RFC 6750 §4); the host sends the token as a Bearer token.',
    });
  }
  if (json.expires_in !== undefined && !(Number.isInteger(json.expires_in) && (json.expires_in as number) > 0)) {
    problems.push({
      saw: `expires_in ${JSON.stringify(json.expires_in)}`,
      fix: 'expires_in must be a positive JSON integer: the lifetime in seconds (RFC 6749 §5.1).',
    });
  }
  if (json.scope !== undefined && !(typeof json.scope === 'string' && SCOPE.test(json.scope))) {
    problems.push({
      saw: `scope ${JSON.stringify(json.scope)}`,
      fix: 'scope must be one string of space-separated scope names (RFC 6749 §3.3).',
    });
  }
  if (json.refresh_token !== undefined && (typeof json.refresh_token !== 'string' || json.refresh_token === '')) {
    problems.push({ saw: 'refresh_token is not a string', fix: FIELDS_FIX });
  }
  if (!/(^|,)\s*no-store\s*(,|$)/i.test(res.headers.get('cache-control') ?? '')) {
    problems.push({
      saw: `Cache-Control ${res.headers.get('cache-control') ?? '(none)'}`,
      fix: 'Send Cache-Control: no-store with tokens (RFC 6749 §5.1).',
    });
  }
  const tokens: IssuedTokens = { access_token: json.access_token };
  if (typeof json.refresh_token === 'string' && json.refresh_token !== '') tokens.refresh_token = json.refresh_token;
  if (json.expires_in !== undefined) tokens.expires_in = json.expires_in;
  return { problems, tokens };
}

/** What the token response carried, for a passing row: `access_token + refresh_token, expires_in 3600`. */
export function describeTokens(tokens: IssuedTokens): string {
  const refresh = tokens.refresh_token ? ' + refresh_token' : '';
  const expiry = tokens.expires_in !== undefined ? `, expires_in ${JSON.stringify(tokens.expires_in)}` : '';
  return `access_token${refresh}${expiry}`;
}
