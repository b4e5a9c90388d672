/**
 * The OpenAPI 3.1 description of `/webhooks/v2`, from the operations list and the resource definitions the router
 * renders with, built with the same schema helpers as `/api/v2`'s.
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
} from '../../jsonapi/openapi-schema.ts';
import { WEBHOOKS_OPERATIONS, type WebhooksOperation } from './webhooks-operations.ts';

/** Where the API is mounted. */
export const WEBHOOKS_PREFIX = '/webhooks/v2';

const ERRORS: Record<string, string> = {
  '400': 'A query parameter or the body is malformed.',
  '401': 'No credentials, or credentials that are not valid.',
  '403': 'Missing User-Agent, an OAuth token without the webhooks scope, or no People role (create).',
  '404': 'Unknown id, or an id of another person or organization.',
  '422': 'A body value is not accepted, or the action does not apply to the event as it is.',
  '429': 'The rate limit is exceeded.',
};

function envelopeName(op: WebhooksOperation): string {
  return `${resourceSchemaName(op.definition)}${op.answers === 'collection' ? 'Collection' : 'Document'}`;
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  }));
}

function operationObject(op: WebhooksOperation) {
  const parameters: unknown[] = pathParameters(op.path);
  if (op.answers !== 'none') parameters.push(fieldsParameter(op.definition));
  if (op.answers === 'collection') parameters.push(...whereParameters(op.definition), ...pageParameters());
  parameters.push({ $ref: '#/components/parameters/UserAgent' });
  const success =
    op.answers === 'none'
      ? { description: 'Done; no body.' }
      : {
          description: op.answers === 'collection' ? `A page of ${op.definition.type}` : `One ${op.definition.type}`,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelopeName(op)}` } } },
        };
  const errors = Object.fromEntries(
    Object.entries(ERRORS).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
    ]),
  );
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.definition.type],
    parameters,
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    data: {
                      type: 'object',
                      required: ['type', ...(op.body.required.length ? ['attributes'] : [])],
                      properties: {
                        type: { const: op.definition.type },
                        attributes: {
                          type: 'object',
                          required: [...op.body.required],
                          properties: op.body.attributes,
                          additionalProperties: false,
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        }
      : {}),
    responses: { [String(op.status)]: success, ...errors },
  };
}

function schemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = { ErrorBody: errorBodySchema() };
  const parents = new Map<string, Set<string>>();
  for (const op of WEBHOOKS_OPERATIONS) {
    if (op.answers === 'none') continue;
    out[resourceSchemaName(op.definition)] = resourceSchema(op.definition);
    parents.set(envelopeName(op), (parents.get(envelopeName(op)) ?? new Set()).add(op.parentType));
  }
  for (const op of WEBHOOKS_OPERATIONS) {
    if (op.answers === 'none') continue;
    const parentTypes = [...parents.get(envelopeName(op))!];
    out[envelopeName(op)] =
      op.answers === 'collection'
        ? collectionEnvelopeSchema(op.definition, parentTypes)
        : singleEnvelopeSchema(op.definition, parentTypes);
  }
  return out;
}

const DESCRIPTION = `Subscriptions to the changes of People records, delivered as signed POSTs.

**Authentication**: an OAuth 2.0 access token with the \`webhooks\` scope (Bearer), or a personal access token (HTTP Basic). Every request must carry a User-Agent header. A person sees only their own subscriptions; another person's or organization's ids are 404.

**Deliveries**: \`POST\` of \`{"data":[{"id":<event uuid>,"type":"EventDelivery","attributes":{"name","attempt","payload"}}]}\`, where \`payload\` is the resource as the API renders it, as a JSON string. Signed with \`X-PCO-Webhooks-Authenticity\` (hex HMAC-SHA256 of the raw body keyed with the authenticity secret) and the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`. Only a 200 answer delivers; anything else is retried 16 times, the waits doubling from 30 seconds; \`410\` and the last failure deactivate the subscription.`;

/** The document for a host at `baseUrl`. */
export function webhooksOpenApiDocument(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of WEBHOOKS_OPERATIONS) (paths[`${WEBHOOKS_PREFIX}${op.path}`] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: { title: 'Webhooks API', version: '2022-10-20', description: DESCRIPTION },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: ['webhooks'] }, { personal_access_token: [] }],
    paths,
    components: {
      schemas: schemas(),
      parameters: {
        UserAgent: {
          name: 'User-Agent',
          in: 'header',
          required: true,
          description: 'Identifies the calling application; requests without one get 403.',
          schema: { type: 'string', minLength: 1 },
        },
      },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              scopes: { webhooks: 'Subscribe to changes of the People records you may see' },
            },
          },
        },
        personal_access_token: { type: 'http', scheme: 'basic' },
      },
    },
  };
}
