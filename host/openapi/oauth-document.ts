/**
 * The OpenAPI 3.1 document of the OAuth 2.0 / OpenID Connect endpoints, from the provider's route table
 * (`OAUTH_ROUTES`), its scopes and token lifetimes. Clients should read the endpoints from the discovery
 * document (`/.well-known/openid-configuration`), which this document links to; it describes what they
 * accept and answer. RP-initiated logout is off (provider.ts), so its route is not described.
 */
import { OAUTH_ROUTES } from '../oauth/provider.ts';
import { TOKEN_LIFETIMES } from '../oauth/lifetimes.ts';
import { PROVIDER_SCOPES } from '../oauth/scopes.ts';
import type { OpenApiDocument } from './product-document.ts';

/** Where the refresh alias (a refresh_token grant at the token endpoint) is mounted. */
const REFRESH_ALIAS = '/oauth/refresh';
const DISCOVERY = '/.well-known/openid-configuration';

type Json = Record<string, unknown>;

const oauthError: Json = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};

function json(schema: Json, description: string): Json {
  return { description, content: { 'application/json': { schema } } };
}

function errors(statuses: string[]): Json {
  return Object.fromEntries(
    statuses.map((s) => [s, json({ $ref: '#/components/schemas/OAuthError' }, 'An OAuth error (RFC 6749 §5.2).')]),
  );
}

function body(schema: Json): Json {
  return {
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } },
  };
}

const clientCredentials = {
  client_id: { type: 'string', description: 'Unless sent with HTTP Basic.' },
  client_secret: { type: 'string', description: 'Confidential clients, unless sent with HTTP Basic.' },
};

/** The OAuth document for a host at `baseUrl`. */
// Long because it is one declarative table (each endpoint's request and answers), read top to bottom like the spec.
export function oauthDocument(baseUrl: string, version: string): OpenApiDocument {
  const tokenBody = {
    type: 'object',
    required: ['grant_type'],
    properties: {
      grant_type: { enum: ['authorization_code', 'refresh_token'] },
      code: {
        type: 'string',
        description: `authorization_code: the code (single use, ${TOKEN_LIFETIMES.authorizationCode} s).`,
      },
      redirect_uri: {
        type: 'string',
        description: 'authorization_code: the redirect URI of the authorization request.',
      },
      code_verifier: { type: 'string', description: 'authorization_code with PKCE: the verifier of code_challenge.' },
      refresh_token: { type: 'string', description: 'refresh_token: the newest refresh token.' },
      ...clientCredentials,
    },
  };
  const tokenResponse = json(
    {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in', 'scope', 'created_at'],
      properties: {
        access_token: { type: 'string' },
        token_type: { const: 'bearer' },
        expires_in: { type: 'integer', const: TOKEN_LIFETIMES.accessToken },
        refresh_token: { type: 'string', description: 'A new one on every grant; the previous one is spent.' },
        scope: { type: 'string' },
        created_at: { type: 'integer', description: 'Unix seconds.' },
        id_token: { type: 'string', description: 'With scope openid: a signed JWT (RS256), 1 h.' },
      },
    },
    'Tokens.',
  );
  const paths: OpenApiDocument['paths'] = {
    [DISCOVERY]: {
      get: {
        operationId: 'discovery',
        summary: 'OpenID Connect discovery',
        description: 'Where every endpoint below is, and what the provider supports.',
        tags: ['discovery'],
        security: [],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'],
              properties: {
                issuer: { type: 'string' },
                authorization_endpoint: { type: 'string' },
                token_endpoint: { type: 'string' },
                jwks_uri: { type: 'string' },
              },
            },
            'The provider metadata.',
          ),
        },
      },
    },
    [OAUTH_ROUTES.jwks]: {
      get: {
        operationId: 'jwks',
        summary: 'Signing keys',
        description: 'The JSON Web Key Set ID tokens are signed with.',
        tags: ['discovery'],
        security: [],
        responses: {
          '200': json({ type: 'object', required: ['keys'], properties: { keys: { type: 'array' } } }, 'The keys.'),
        },
      },
    },
    [OAUTH_ROUTES.authorization]: {
      get: {
        operationId: 'authorize',
        summary: 'Authorization request',
        description:
          'Sends the person to sign in and consent, then redirects to redirect_uri with code and state (or error). Use PKCE (S256) for public clients.',
        tags: ['authorization code'],
        security: [],
        parameters: [
          ['response_type', true, { const: 'code' }, 'Always code.'],
          ['client_id', true, { type: 'string' }, 'The OAuth application.'],
          ['redirect_uri', true, { type: 'string' }, 'One of the application’s registered redirect URIs.'],
          [
            'scope',
            true,
            { type: 'string' },
            `Space-separated, from: ${PROVIDER_SCOPES.join(', ')}; add openid for an ID token.`,
          ],
          ['state', false, { type: 'string' }, 'Returned unchanged; check it.'],
          ['code_challenge', false, { type: 'string' }, 'PKCE: BASE64URL(SHA-256(code_verifier)).'],
          ['code_challenge_method', false, { const: 'S256' }, 'PKCE method.'],
          ['nonce', false, { type: 'string' }, 'OpenID Connect: repeated in the ID token.'],
        ].map(([name, required, schema, description]) => ({ name, in: 'query', required, schema, description })),
        responses: {
          '303': { description: 'To the sign-in or consent page, or back to redirect_uri with code and state.' },
          '400': { description: 'An HTML error page when redirect_uri or client_id cannot be trusted.' },
        },
      },
    },
    [OAUTH_ROUTES.token]: {
      post: {
        operationId: 'token',
        summary: 'Token request',
        description: `Exchanges a code (authorization_code) or the newest refresh token (refresh_token) for an access token (${TOKEN_LIFETIMES.accessToken} s) and a new refresh token. A refresh token presented again within 10 s of its rotation gets the same pair again; later, or once replaced again, it revokes the grant.`,
        tags: ['tokens'],
        security: [{ client_basic: [] }, {}],
        requestBody: body(tokenBody),
        responses: { '200': tokenResponse, ...errors(['400', '401']) },
      },
    },
    [REFRESH_ALIAS]: {
      post: {
        operationId: 'refresh',
        summary: 'Refresh (alias)',
        description: 'A refresh_token grant at the token endpoint; grant_type may be left out.',
        tags: ['tokens'],
        security: [{ client_basic: [] }, {}],
        requestBody: body({ ...tokenBody, required: ['refresh_token'] }),
        responses: { '200': tokenResponse, ...errors(['400', '401']) },
      },
    },
    [OAUTH_ROUTES.revocation]: {
      post: {
        operationId: 'revoke',
        summary: 'Revoke a token',
        description:
          'Revokes an access or refresh token of the calling client (RFC 7009); unknown tokens are not an error.',
        tags: ['tokens'],
        security: [{ client_basic: [] }, {}],
        requestBody: body({
          type: 'object',
          required: ['token'],
          properties: {
            token: { type: 'string' },
            token_type_hint: { enum: ['access_token', 'refresh_token'] },
            ...clientCredentials,
          },
        }),
        responses: {
          '200': json({ type: 'object', maxProperties: 0 }, 'Revoked (or unknown).'),
          ...errors(['400', '401']),
        },
      },
    },
    [OAUTH_ROUTES.introspection]: {
      post: {
        operationId: 'introspect',
        summary: 'Introspect a token',
        description: 'Whether a token is active, and its scope and client (RFC 7662).',
        tags: ['tokens'],
        security: [{ client_basic: [] }, {}],
        requestBody: body({
          type: 'object',
          required: ['token'],
          properties: { token: { type: 'string' }, token_type_hint: { type: 'string' }, ...clientCredentials },
        }),
        responses: {
          '200': json(
            {
              oneOf: [
                {
                  type: 'object',
                  required: ['active'],
                  additionalProperties: false,
                  properties: { active: { const: false } },
                },
                {
                  type: 'object',
                  required: ['active', 'scope', 'client_id', 'token_type', 'exp', 'iat'],
                  additionalProperties: false,
                  properties: {
                    active: { const: true },
                    scope: { type: 'string' },
                    client_id: { type: 'string' },
                    token_type: { const: 'Bearer' },
                    exp: { type: 'integer' },
                    iat: { type: 'integer' },
                  },
                },
              ],
            },
            'The token’s state.',
          ),
          ...errors(['400', '401']),
        },
      },
    },
    [OAUTH_ROUTES.userinfo]: {
      get: {
        operationId: 'userinfo',
        summary: 'The signed-in person’s claims',
        description: 'OpenID Connect UserInfo for an access token with scope openid.',
        tags: ['OpenID Connect'],
        security: [{ bearer: [] }],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['sub'],
              properties: {
                sub: { type: 'string' },
                name: { type: 'string' },
                email: { type: 'string' },
                organization_id: { type: 'string' },
                organization_name: { type: 'string' },
              },
            },
            'The claims.',
          ),
          ...errors(['400', '401']),
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'OAuth 2.0 and OpenID Connect',
      version,
      description: `The authorization server. Discover the endpoints at [${DISCOVERY}](${baseUrl}${DISCOVERY}); the signing keys are at ${OAUTH_ROUTES.jwks}. Access tokens last ${TOKEN_LIFETIMES.accessToken / 3600} hours, ID tokens ${TOKEN_LIFETIMES.idToken / 3600} hour, refresh tokens ${TOKEN_LIFETIMES.refreshToken / 86400} days after their access token.`,
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'discovery', description: 'Where the endpoints and keys are.' },
      { name: 'authorization code', description: 'Sending the person to consent.' },
      { name: 'tokens', description: 'Getting, refreshing, checking and revoking tokens.' },
      { name: 'OpenID Connect', description: 'Who signed in.' },
    ],
    paths,
    components: {
      schemas: { OAuthError: oauthError },
      securitySchemes: {
        client_basic: {
          type: 'http',
          scheme: 'basic',
          description: 'client_id and client_secret (confidential clients).',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'An access token.' },
        openid: { type: 'openIdConnect', openIdConnectUrl: `${baseUrl}${DISCOVERY}` },
      },
    },
  };
}
