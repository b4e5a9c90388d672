/**
 * OpenAPI pieces every API document shares: component references, the rate-limit headers, error
 * responses around the `{errors: [...]}` body, the User-Agent parameter and the two ways to
 * authenticate (OAuth 2.0 or a personal access token).
 */
import { RATE_LIMIT_HEADERS } from '../limits/api-rate-limit.ts';

/** `{$ref: '#/components/<kind>/<name>'}`. */
export function ref(kind: string, name: string): { $ref: string } {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The rate-limit headers every API response carries (while the host's rate limit is on). */
export const RATE_LIMIT_HEADER_REFS = {
  [RATE_LIMIT_HEADERS.limit]: ref('headers', 'RateLimit'),
  [RATE_LIMIT_HEADERS.period]: ref('headers', 'RatePeriod'),
  [RATE_LIMIT_HEADERS.count]: ref('headers', 'RateCount'),
};

/** The header components `RATE_LIMIT_HEADER_REFS` and a 429's Retry-After point at. */
export function rateLimitHeaderComponents(): Record<string, Record<string, unknown>> {
  return {
    RateLimit: {
      description:
        'Requests allowed per period to this user and application (or, without credentials, this client address).',
      schema: { type: 'integer', minimum: 1 },
    },
    RatePeriod: {
      description: 'Length of the rate-limit period, in seconds.',
      schema: { type: 'integer', minimum: 1 },
    },
    RateCount: {
      description: 'Requests counted in the current period, this one included.',
      schema: { type: 'integer', minimum: 1 },
    },
    RetryAfter: {
      description: 'Seconds to wait before the next request is accepted.',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  };
}

/** An error response: the ErrorBody schema with one example row, the rate-limit headers and `headers`. */
export function errorResponse(
  description: string,
  example: Record<string, unknown>,
  headers: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    description,
    headers: { ...headers, ...RATE_LIMIT_HEADER_REFS },
    content: { 'application/json': { schema: ref('schemas', 'ErrorBody'), example: { errors: [example] } } },
  };
}

/** The 429 every API answers past its rate limit. */
export function tooManyRequestsResponse(): Record<string, unknown> {
  return errorResponse(
    'The rate limit (by default 100 requests per 20 seconds per user and application; per client address ' +
      'without credentials) is exceeded, or credentials failed too often from this address. Wait Retry-After seconds.',
    {
      status: '429',
      code: 'rate_limit_exceeded',
      title: 'Too Many Requests',
      detail: 'Rate limit exceeded: 101 of 100 requests per 20 seconds',
    },
    { 'Retry-After': ref('headers', 'RetryAfter') },
  );
}

/** The 500 of every API. */
export function internalServerErrorResponse(): Record<string, unknown> {
  return errorResponse('An unexpected failure; nothing internal is shown.', {
    status: '500',
    title: 'Internal Server Error',
    detail: 'An internal error occurred. Please contact support if the problem persists.',
  });
}

/** The 401 of every API. */
export function unauthorizedResponse(): Record<string, unknown> {
  return errorResponse('No credentials, or credentials that are not valid.', {
    status: '401',
    title: 'Unauthorized',
    detail: 'The authenticated user has no record in this application or the credentials are not valid',
  });
}

/** The 404 of every API. */
export function notFoundResponse(): Record<string, unknown> {
  return errorResponse('Unknown id, or an id of another organization.', {
    status: '404',
    title: 'Not Found',
    detail: 'The resource you requested could not be found',
  });
}

/** The required User-Agent header parameter. */
export function userAgentParameter(): Record<string, unknown> {
  return {
    name: 'User-Agent',
    in: 'header',
    required: true,
    description: 'Identifies the calling application; requests without one get 403.',
    schema: { type: 'string', minLength: 1 },
  };
}

/** OAuth 2.0 (authorization code, PKCE) with `scopes`, and personal access tokens (HTTP Basic). */
export function securitySchemes(baseUrl: string, scopes: Record<string, string>): Record<string, unknown> {
  return {
    oauth2: {
      type: 'oauth2',
      description:
        'OAuth 2.0 authorization code flow (PKCE S256 supported). Access tokens last 2 hours. ' +
        `The endpoints are described at /oauth/v2/open_api and discovered at ${baseUrl}/.well-known/openid-configuration.`,
      flows: {
        authorizationCode: {
          authorizationUrl: `${baseUrl}/oauth/authorize`,
          tokenUrl: `${baseUrl}/oauth/token`,
          refreshUrl: `${baseUrl}/oauth/refresh`,
          scopes,
        },
      },
    },
    personal_access_token: {
      type: 'http',
      scheme: 'basic',
      description: 'A personal access token: its client_id as user name and its secret as password.',
    },
  };
}
