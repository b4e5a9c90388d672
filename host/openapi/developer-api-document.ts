/**
 * The OpenAPI 3.1 description of the developer-account API, generated from the same endpoint
 * declarations and resource definitions the router mounts, so paths, parameters and bodies cannot
 * drift from what is served.
 * @see https://spec.openapis.org/oas/v3.1.0
 */
import {
  collectionEnvelopeSchema,
  errorBodySchema,
  fieldsParameter,
  pageParameters,
  resourceSchema,
  resourceSchemaName,
  singleEnvelopeSchema,
  whereParameters,
  type JsonSchema,
  type ParameterObject,
} from '../jsonapi/openapi-schema.ts';
import type { ResourceDefinition } from '../jsonapi/resource.ts';
import { API_VERSION_HEADER, API_VERSIONS, PLATFORM_RELEASE, type ApiVersion } from '../api/api-version.ts';
import { developerApiEndpoints } from '../api/developer-api-endpoints.ts';
import type { Endpoint } from '../api/endpoint.ts';
import {
  errorResponse,
  internalServerErrorResponse,
  notFoundResponse,
  rateLimitHeaderComponents,
  RATE_LIMIT_HEADER_REFS,
  ref,
  securitySchemes,
  tooManyRequestsResponse,
  unauthorizedResponse,
  userAgentParameter,
} from './components.ts';

/** Where the API is mounted; OpenAPI paths are absolute from the host root. */
export const API_PREFIX = '/api/v2';
/** Name of the vendor extension (on `info`) carrying the platform release. */
export const RELEASE_EXTENSION = 'x-platform-release';

/** The generated document (the members this code reads are typed). */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: Record<string, unknown> & { title: string; version: string; description: string };
  paths: Record<string, Record<string, OperationObject>>;
  components: Record<string, Record<string, unknown>>;
};

/** One operation of the document. */
export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: (ParameterObject | { $ref: string })[];
  responses: Record<string, unknown>;
}

/** Error statuses every endpoint may answer, with the response component describing each. */
const ERROR_RESPONSES = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '429': 'TooManyRequests',
  '500': 'InternalServerError',
} as const;

const DESCRIPTION = `Read-only access to an organization's developer-account records: connected applications (with the people who connected them), OAuth applications (with monthly active users) and the requester's personal access tokens.

**Authentication**: an OAuth 2.0 access token with the \`api\` scope (Bearer), or a personal access token (HTTP Basic: client_id as user name, secret as password). Every request must carry a User-Agent header.

**Who may read what**: everyone reads their Organization (\`GET /api/v2\`) and their own personal access tokens. Connected applications, OAuth applications and monthly active users are read by organization administrators only; anyone else gets 403. Ids of another organization, and other people's tokens, are 404 like unknown ones.

**Versioning**: send \`${API_VERSION_HEADER}: <version>\` to pin a version (served: ${API_VERSIONS.join(', ')}); without it the latest answers. An unsupported version gets 400 with code \`unsupported_version\` and \`meta.supported_versions\`. Every response names the version that answered in its \`${API_VERSION_HEADER}\` header. \`X-PCO-API-Version\`, which Planning Center API clients may send, is ignored (any value): only \`${API_VERSION_HEADER}\` selects a version here. This document is served at \`/api/v2/open_api/<version>\` and, for the latest, at \`/api/v2/open_api\` and \`/api/v2/open_api/latest\`.

**Envelopes**: every response body has \`data\`, \`included\` (always present; empty here, since nothing in this API can be included) and \`meta\`; collections also have \`links\`.

**Pagination**: collections take \`per_page\` (1 to 100, default 25) and \`offset\` (default 0); \`links.next\` and \`links.prev\` keep every query parameter and can be followed verbatim.`;

function tagOf(endpoint: Endpoint): string {
  return endpoint.path === '' ? 'Organization' : (endpoint.path.split('/')[1] ?? '');
}

function envelopeName(def: ResourceDefinition, kind: Endpoint['kind']): string {
  return `${resourceSchemaName(def)}${kind === 'collection' ? 'Collection' : 'Document'}`;
}

function parametersOf(endpoint: Endpoint): OperationObject['parameters'] {
  const params: OperationObject['parameters'] = endpoint.pathParameters.map((p) => ({
    name: p.name,
    in: 'path',
    required: true,
    description: p.description,
    schema: { type: 'string', pattern: p.name === 'mau_id' ? '^[0-9]{4}(0[1-9]|1[0-2])$' : '^[0-9]+$' },
  }));
  if (endpoint.definition.fields.length > 0) params.push(fieldsParameter(endpoint.definition));
  if (endpoint.kind === 'collection') params.push(...whereParameters(endpoint.definition), ...pageParameters());
  params.push(ref('parameters', 'ApiVersion'), ref('parameters', 'UserAgent'));
  return params;
}

function operationOf(endpoint: Endpoint): OperationObject {
  const access = endpoint.access === 'organization_administrator' ? ' Organization administrators only.' : '';
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: `${endpoint.description}${access}`,
    tags: [tagOf(endpoint)],
    parameters: parametersOf(endpoint),
    responses: {
      '200': {
        description:
          endpoint.kind === 'collection' ? `A page of ${endpoint.definition.type}` : `One ${endpoint.definition.type}`,
        headers: { [API_VERSION_HEADER]: ref('headers', 'ApiVersion'), ...RATE_LIMIT_HEADER_REFS },
        content: { 'application/json': { schema: ref('schemas', envelopeName(endpoint.definition, endpoint.kind)) } },
      },
      ...Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [status, ref('responses', name)])),
    },
  };
}

function schemas(endpoints: readonly Endpoint[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const parents = new Map<string, Set<string>>();
  for (const e of endpoints) {
    out[resourceSchemaName(e.definition)] = resourceSchema(e.definition);
    const name = envelopeName(e.definition, e.kind);
    parents.set(name, (parents.get(name) ?? new Set()).add(e.parentType));
  }
  for (const e of endpoints) {
    const name = envelopeName(e.definition, e.kind);
    const parentTypes = [...(parents.get(name) ?? [])];
    out[name] =
      e.kind === 'collection'
        ? collectionEnvelopeSchema(e.definition, parentTypes)
        : singleEnvelopeSchema(e.definition, parentTypes);
  }
  out.ErrorBody = errorBodySchema();
  return out;
}

/** The description of `version` for a host at `baseUrl`. */
export function openApiDocument(baseUrl: string, version: ApiVersion): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const endpoint of developerApiEndpoints) {
    paths[`${API_PREFIX}${endpoint.path}`] = { get: operationOf(endpoint) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Organization Developer API',
      version,
      [RELEASE_EXTENSION]: PLATFORM_RELEASE,
      description: DESCRIPTION,
    },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: ['api'] }, { personal_access_token: [] }],
    tags: [
      { name: 'Organization', description: 'The entry point.' },
      { name: 'connected_applications', description: 'Applications people of the organization authorized.' },
      { name: 'oauth_applications', description: "The organization's own OAuth applications." },
      { name: 'personal_access_tokens', description: "The requester's personal access tokens." },
    ],
    paths,
    components: {
      schemas: schemas(developerApiEndpoints),
      parameters: {
        ApiVersion: {
          name: API_VERSION_HEADER,
          in: 'header',
          required: false,
          description: `The API version the client was written against; the latest when absent. Unsupported values get 400 unsupported_version.`,
          schema: { type: 'string', enum: [...API_VERSIONS] },
        },
        UserAgent: userAgentParameter(),
      },
      headers: {
        ApiVersion: {
          description: 'The API version that answered.',
          required: true,
          schema: { type: 'string', enum: [...API_VERSIONS] },
        },
        ...rateLimitHeaderComponents(),
      },
      responses: {
        BadRequest: errorResponse(
          'A query parameter is wrong: integer_out_of_range (per_page, offset), unknown_attribute with title Invalid Version (a fields[...] or where[...] name or value this endpoint does not accept), invalid_parameter (a where[...] value of the wrong type, or a parameter given twice), or unsupported_version (the X-API-Version header).',
          {
            status: '400',
            code: 'integer_out_of_range',
            title: 'Bad Request',
            detail: 'Your request could not be processed',
            source: { parameter: 'per_page' },
          },
        ),
        Unauthorized: unauthorizedResponse(),
        Forbidden: errorResponse(
          'Missing User-Agent, an OAuth token without the api scope, or a person who may not read this resource; meta.description says which.',
          {
            status: '403',
            title: 'Forbidden',
            detail: 'You do not have access to this resource',
            meta: {
              description:
                'Only organization administrators may read connected applications, OAuth applications and monthly active users',
            },
          },
        ),
        NotFound: notFoundResponse(),
        TooManyRequests: tooManyRequestsResponse(),
        InternalServerError: internalServerErrorResponse(),
      },
      securitySchemes: securitySchemes(baseUrl, { api: 'Read the developer-account API' }),
    },
  };
}
