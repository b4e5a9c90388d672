/**
 * The OpenAPI 3.1 document of a product API (`/people/v2`, `/current/v2`, …), built from its mounted
 * router: each route's method and path from the router's stack, its resources, includes, `order`,
 * `where[]`, filters, write body and statuses from the declaration the route was made from
 * (host/jsonapi/route-description.ts).
 * @see https://spec.openapis.org/oas/v3.1.0
 */
import {
  collectionEnvelopeSchema,
  errorBodySchema,
  fieldsParameter,
  filterParameter,
  includeParameter,
  orderParameter,
  pageParameters,
  resourceSchema,
  resourceSchemaName,
  singleEnvelopeSchema,
  whereParameters,
  type JsonSchema,
} from '../jsonapi/openapi-schema.ts';
import type { PayloadAttribute, PayloadShape } from '../jsonapi/payload.ts';
import type { ResourceDefinition } from '../jsonapi/resource.ts';
import { routeDescriptionOf, type RouteDescription } from '../jsonapi/route-description.ts';
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
import type { ProductApi } from './product-api.ts';
import { routerOperations, type RouterOperation } from './router-operations.ts';

type Json = Record<string, unknown>;

/** An OpenAPI document (the members read by the host are typed). */
export type OpenApiDocument = Json & {
  openapi: string;
  info: Json & { title: string; version: string; description: string };
  paths: Record<string, Record<string, Json>>;
  components: Record<string, Record<string, unknown>>;
};

const QUERY_ERRORS =
  'integer_out_of_range (per_page, offset), unknown_attribute with title Invalid Version (a fields[...], include, order, filter or where[...] value this endpoint does not accept), invalid_parameter (a where[...] value of the wrong type, or a parameter given twice)';
const BODY_ERRORS =
  'invalid_json (a body that is not JSON), invalid_resource_payload (not {"data": {"type", "attributes"}} of this type), unknown_attribute (an attribute the type does not have)';

function words(segment: string): string {
  return segment.replace(/_/g, ' ');
}

function operationIdOf(op: RouterOperation): string {
  const parts = op.path
    .split('/')
    .filter(Boolean)
    .map((p) => (p.startsWith('{') ? `by_${p.slice(1, -1)}` : p));
  return [op.method, ...parts].join('_');
}

function summaryOf(op: RouterOperation, described: RouteDescription | undefined): string {
  const last = op.path.split('/').filter(Boolean).at(-1) ?? '';
  const type = described?.definition.type ?? '';
  if (op.method === 'delete') return `Delete ${words(op.path.split('/')[1] ?? '').replace(/s$/, '')}`;
  if (!described) return `${op.method.toUpperCase()} ${op.path}`;
  if (described.kind === 'collection') return `List ${words(last)}`;
  if (op.method === 'get') return last.startsWith('{') || op.path === '/me' ? `Get ${type}` : `Get ${words(last)}`;
  if (op.method === 'patch') return `Update ${type}`;
  if (described.status === 201) return `Create ${type}`;
  return `${words(last)[0]?.toUpperCase() ?? ''}${words(last).slice(1)} (answers the ${type})`;
}

function pathParameters(op: RouterOperation, described: RouteDescription | undefined): Json[] {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description:
      name === 'id'
        ? `Id of the ${described?.definition.type ?? words(op.path.split('/')[1] ?? '').replace(/s$/, '')}.`
        : `Id of the ${words(name!.replace(/_id$/, ''))}.`,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  }));
}

function queryParameters(described: RouteDescription): Json[] {
  const { definition, related } = described;
  const params: Json[] = [definition, ...related]
    .filter((d) => d.fields.length > 0)
    .map((d) => ({ ...fieldsParameter(d) }));
  if (definition.includes?.length) params.push({ ...includeParameter(definition) });
  if (described.kind === 'collection') {
    if (definition.order && Object.keys(definition.order).length) params.push({ ...orderParameter(definition) });
    params.push(...whereParameters(definition).map((p) => ({ ...p })));
    if (definition.filters && Object.keys(definition.filters).length) params.push({ ...filterParameter(definition) });
    params.push(...pageParameters().map((p) => ({ ...p })));
  }
  return params;
}

function payloadAttributeSchema(attribute: PayloadAttribute): JsonSchema {
  const base: JsonSchema =
    attribute.type === 'date_time'
      ? { type: 'string', format: 'date-time' }
      : attribute.type === 'primary_key'
        ? { type: 'string', pattern: '^[1-9][0-9]{0,17}$' }
        : { type: attribute.type };
  if (attribute.enum) base.enum = [...attribute.enum];
  if (attribute.nullable) {
    base.type = [base.type, 'null'];
    if (base.enum) base.enum = [...(base.enum as unknown[]), null];
  }
  return base;
}

/** `{data: {type, attributes, relationships}}` as parseResourcePayload reads it. */
export function payloadSchema(shape: PayloadShape): JsonSchema {
  const relationships = Object.fromEntries(
    Object.entries(shape.relationships ?? {}).map(([name, rel]) => {
      const identifier = {
        type: 'object',
        required: ['type', 'id'],
        properties: { type: { const: rel.type }, id: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } },
      };
      return [
        name,
        {
          type: 'object',
          required: ['data'],
          properties: { data: rel.nullable ? { oneOf: [identifier, { type: 'null' }] } : identifier },
        },
      ];
    }),
  );
  return {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { const: shape.type },
          attributes: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(
              Object.entries(shape.assignable).map(([name, a]) => [name, payloadAttributeSchema(a)]),
            ),
            description: `Read-only here (422 Forbidden Attribute): ${shape.readOnly.join(', ')}.`,
          },
          ...(shape.relationships
            ? { relationships: { type: 'object', additionalProperties: false, properties: relationships } }
            : {}),
        },
      },
    },
  };
}

function successResponse(described: RouteDescription): Json {
  const envelope =
    described.kind === 'collection'
      ? collectionEnvelopeSchema(described.definition, [], described.related)
      : singleEnvelopeSchema(described.definition, [], described.related);
  return {
    description:
      described.kind === 'collection'
        ? `A page of ${described.definition.type}`
        : described.status === 201
          ? `The ${described.definition.type} created; Location names it`
          : `One ${described.definition.type}`,
    headers: {
      ...RATE_LIMIT_HEADER_REFS,
      ...(described.status === 201
        ? { Location: { required: true, schema: { type: 'string', pattern: '^https?://' } } }
        : {}),
    },
    content: { 'application/json': { schema: envelope } },
  };
}

function operationOf(op: RouterOperation): Json {
  const described = op.handlers.map(routeDescriptionOf).find((d) => d !== undefined);
  if (!described && op.method !== 'delete')
    throw new Error(`${op.method.toUpperCase()} ${op.path} is not declared with collectionRoute or singleRoute`);
  const writes = op.method !== 'get';
  const responses: Json = described
    ? { [String(described.status)]: successResponse(described) }
    : { '204': { description: 'Deleted; no body.', headers: { ...RATE_LIMIT_HEADER_REFS } } };
  if (op.method === 'get')
    responses['304'] = { description: "Not Modified: the If-None-Match ETag is still the answer's." };
  responses['400'] = ref('responses', writes ? 'BadWrite' : 'BadRequest');
  responses['401'] = ref('responses', 'Unauthorized');
  responses['403'] = ref('responses', 'Forbidden');
  responses['404'] = ref('responses', 'NotFound');
  if (writes) responses['422'] = ref('responses', 'UnprocessableEntity');
  responses['429'] = ref('responses', 'TooManyRequests');
  responses['500'] = ref('responses', 'InternalServerError');
  const segment = op.path.split('/')[1] ?? '';
  return {
    operationId: operationIdOf(op),
    summary: summaryOf(op, described),
    description: described?.definition.description ?? 'Deletes the resource.',
    tags: [segment || 'root'],
    parameters: [
      ...pathParameters(op, described),
      ...(described ? queryParameters(described) : []),
      ref('parameters', 'UserAgent'),
    ],
    ...(described?.payload
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: payloadSchema(described.payload) } },
          },
        }
      : {}),
    responses,
  };
}

/** Every resource definition a route renders, by schema name. */
function resourceSchemas(operations: RouterOperation[]): Record<string, JsonSchema> {
  const definitions = new Map<string, ResourceDefinition>();
  for (const op of operations) {
    for (const d of op.handlers.map(routeDescriptionOf)) {
      if (!d) continue;
      for (const def of [d.definition, ...d.related]) definitions.set(resourceSchemaName(def), def);
    }
  }
  return Object.fromEntries(
    [...definitions].sort(([a], [b]) => a.localeCompare(b)).map(([name, def]) => [name, resourceSchema(def)]),
  );
}

/** The document of `api` at `version` for a host at `baseUrl`. */
export function productDocument(api: ProductApi, baseUrl: string, version: string): OpenApiDocument {
  const operations = routerOperations(api.router);
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const path = `${api.prefix}${op.path === '/' ? '' : op.path}`;
    (paths[path] ??= {})[op.method] = operationOf(op);
  }
  const segments = [...new Set(operations.map((op) => op.path.split('/')[1] || 'root'))];
  return {
    openapi: '3.1.0',
    info: { title: api.title, version, description: api.description },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: api.scope ? [api.scope.name] : [] }, { personal_access_token: [] }],
    tags: segments.map((name) => ({ name, description: api.tags?.[name] ?? words(name) })),
    paths,
    components: {
      schemas: { ...resourceSchemas(operations), ErrorBody: errorBodySchema() },
      parameters: { UserAgent: userAgentParameter() },
      headers: rateLimitHeaderComponents(),
      responses: {
        BadRequest: errorResponse(`A query parameter is wrong: ${QUERY_ERRORS}.`, {
          status: '400',
          code: 'integer_out_of_range',
          title: 'Bad Request',
          detail: 'Your request could not be processed',
          source: { parameter: 'per_page' },
        }),
        BadWrite: errorResponse(`The body or a query parameter is wrong: ${BODY_ERRORS}; ${QUERY_ERRORS}.`, {
          status: '400',
          code: 'invalid_resource_payload',
          title: 'Bad Request',
          detail: 'data.type must be Note',
        }),
        Unauthorized: unauthorizedResponse(),
        Forbidden: errorResponse(
          `Missing User-Agent, ${api.scope ? `an OAuth token without the ${api.scope.name} scope, ` : ''}or a person whose role may not do this (reading needs a viewer, writing an editor); meta.description says which.`,
          { status: '403', title: 'Forbidden', detail: 'You do not have access to this resource' },
        ),
        NotFound: notFoundResponse(),
        UnprocessableEntity: errorResponse(
          'The body names something it may not: Forbidden Attribute (a read-only attribute), invalid_payload (a value of the wrong kind), invalid_enum_value, attribute_resource_not_found (an id of a related record that is not in the organization), or a Validation Error (source.parameter says which attribute).',
          {
            status: '422',
            code: 'invalid_enum_value',
            title: 'Invalid Enum Value',
            detail: 'subset must be one of: all, active, inactive',
            source: { parameter: 'subset' },
          },
        ),
        TooManyRequests: tooManyRequestsResponse(),
        InternalServerError: internalServerErrorResponse(),
      },
      securitySchemes: securitySchemes(baseUrl, api.scope ? { [api.scope.name]: api.scope.description } : {}),
    },
  };
}
