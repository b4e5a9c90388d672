/**
 * OpenAPI 3.1 fragments (JSON Schema 2020-12) derived from resource definitions and the query rules,
 * so a description built from them says exactly what the routes render and accept.
 * @see https://spec.openapis.org/oas/v3.1.0#schema-object
 */
import { scalarSchema, type JsonSchema } from './openapi-scalars.ts';
import type { AttributeDefinition, ResourceDefinition } from './resource.ts';

export type { JsonSchema, ParameterObject } from './openapi-scalars.ts';
export {
  fieldsParameter,
  filterParameter,
  includeParameter,
  orderParameter,
  pageParameters,
  whereParameters,
} from './openapi-parameters.ts';

// Links keep query strings as sent (brackets unencoded), which RFC 3986's `uri` format refuses.
const ABSOLUTE_URL: JsonSchema = { type: 'string', pattern: '^https?://' };

/** Where the shared schemas live in the document. */
export const SCHEMA_REF = '#/components/schemas/';

/** The schema of one attribute value as `renderResource` serializes it. */
export function attributeSchema(attr: AttributeDefinition): JsonSchema {
  const schema = scalarSchema(attr.type);
  if (attr.type === 'array' && attr.items) schema.items = scalarSchema(attr.items);
  if (attr.enum) schema.enum = [...attr.enum];
  if (attr.nullable) {
    schema.type = [schema.type, 'null'];
    if (schema.enum) schema.enum = [...(schema.enum as unknown[]), null];
  }
  if (attr.description) schema.description = attr.description;
  return schema;
}

/** Names of a definition's `links`; read by calling it on an empty row, so they cannot drift. */
export function linkNamesOf(def: ResourceDefinition): string[] {
  return Object.keys(def.links({}, ''));
}

/** Schema name of a resource object of `def`. */
export function resourceSchemaName(def: ResourceDefinition): string {
  return def.type;
}

/**
 * A resource object: every attribute optional (sparse fieldsets), none other allowed; every link
 * required.
 */
export function resourceSchema(def: ResourceDefinition): JsonSchema {
  const attributes: Record<string, JsonSchema> = {};
  for (const [name, attr] of Object.entries(def.attributes)) attributes[name] = attributeSchema(attr);
  const links = linkNamesOf(def);
  const schema: JsonSchema = {
    type: 'object',
    ...(def.description ? { description: def.description } : {}),
    required: ['id', 'type', 'attributes', 'links'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      type: { const: def.type },
      attributes: { type: 'object', additionalProperties: false, properties: attributes },
      links: {
        type: 'object',
        required: links,
        additionalProperties: false,
        properties: Object.fromEntries(links.map((l) => [l, ABSOLUTE_URL])),
      },
    },
  };
  if (def.relationships) {
    const relationships: Record<string, JsonSchema> = {};
    for (const [name, rel] of Object.entries(def.relationships)) {
      const identifier = {
        type: 'object',
        required: ['type', 'id'],
        additionalProperties: false,
        properties: { type: { const: rel.type }, id: { type: 'string' } },
      };
      relationships[name] = {
        type: 'object',
        required: rel.related ? ['data', 'links'] : ['data'],
        additionalProperties: false,
        properties: {
          data: { oneOf: [identifier, { type: 'null' }] },
          ...(rel.related
            ? {
                links: {
                  type: 'object',
                  required: ['related'],
                  additionalProperties: false,
                  properties: { related: ABSOLUTE_URL },
                },
              }
            : {}),
        },
      };
    }
    (schema.required as string[]).push('relationships');
    (schema.properties as Record<string, JsonSchema>).relationships = {
      type: 'object',
      additionalProperties: false,
      properties: relationships,
    };
  }
  return schema;
}

/** `meta.parent`: one of `parentTypes`, or any type when none is given. */
function parentSchema(parentTypes: readonly string[]): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      type: parentTypes.length > 0 ? { enum: [...parentTypes] } : { type: 'string' },
    },
  };
}

/**
 * The `included` member: always present (clients such as pypco read it unconditionally); resources of the
 * `includable` types, or always empty when the endpoint includes nothing.
 */
export function includedSchema(includable: readonly ResourceDefinition[]): JsonSchema {
  if (includable.length === 0) {
    return {
      type: 'array',
      maxItems: 0,
      description: 'Always empty: nothing can be included here; present so clients can read it unconditionally.',
    };
  }
  const refs = includable.map((d) => ({ $ref: `${SCHEMA_REF}${resourceSchemaName(d)}` }));
  return {
    type: 'array',
    items: refs.length === 1 ? refs[0] : { oneOf: refs },
    description: 'Resources named by the include parameter, each once; empty when nothing was included.',
  };
}

/** `{data, included, meta: {parent}}` around one resource of `def`. */
export function singleEnvelopeSchema(
  def: ResourceDefinition,
  parentTypes: readonly string[],
  includable: readonly ResourceDefinition[] = [],
): JsonSchema {
  return {
    type: 'object',
    required: ['data', 'included', 'meta'],
    additionalProperties: false,
    properties: {
      data: { $ref: `${SCHEMA_REF}${resourceSchemaName(def)}` },
      included: includedSchema(includable),
      meta: {
        type: 'object',
        required: ['parent'],
        additionalProperties: false,
        properties: { parent: parentSchema(parentTypes) },
      },
    },
  };
}

/** `{data: [], included, meta: {total_count, count, prev?, next?, parent, can_query_by?}, links}` for `def`. */
export function collectionEnvelopeSchema(
  def: ResourceDefinition,
  parentTypes: readonly string[],
  includable: readonly ResourceDefinition[] = [],
): JsonSchema {
  const offset = {
    type: 'object',
    required: ['offset'],
    additionalProperties: false,
    properties: { offset: { type: 'integer', minimum: 0, default: 0 } },
  };
  const metaRequired = ['total_count', 'count', 'parent'];
  const metaProperties: Record<string, JsonSchema> = {
    total_count: { type: 'integer', minimum: 0, description: 'Resources matching the request, over all pages.' },
    count: { type: 'integer', minimum: 0, description: 'Resources on this page.' },
    prev: { ...offset, description: 'Offset of the previous page; absent on the first page.' },
    next: { ...offset, description: 'Offset of the next page; absent on the last page.' },
    parent: parentSchema(parentTypes),
  };
  if (def.canQueryBy) {
    metaRequired.push('can_query_by');
    metaProperties.can_query_by = {
      const: [...def.canQueryBy],
      description: 'The where[...] attributes this collection accepts.',
    };
  }
  const link = ABSOLUTE_URL;
  return {
    type: 'object',
    required: ['data', 'included', 'meta', 'links'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: { $ref: `${SCHEMA_REF}${resourceSchemaName(def)}` } },
      included: includedSchema(includable),
      meta: { type: 'object', required: metaRequired, additionalProperties: false, properties: metaProperties },
      links: {
        type: 'object',
        required: ['self'],
        additionalProperties: false,
        properties: {
          self: { ...link, description: 'This page, with every query parameter of the request.' },
          prev: { ...link, description: 'The previous page; absent on the first page.' },
          next: { ...link, description: 'The next page; absent on the last page. Follow it verbatim.' },
        },
      },
    },
  };
}

/** The `{errors: [...]}` body of every error response. */
export function errorBodySchema(): JsonSchema {
  return {
    type: 'object',
    required: ['errors'],
    additionalProperties: false,
    properties: {
      errors: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['status', 'title', 'detail'],
          additionalProperties: false,
          properties: {
            status: { type: 'string', pattern: '^[45][0-9]{2}$' },
            code: { type: 'string' },
            title: { type: 'string' },
            detail: { type: 'string' },
            source: {
              type: 'object',
              required: ['parameter'],
              additionalProperties: false,
              properties: { parameter: { type: 'string' } },
            },
            meta: { type: 'object' },
          },
        },
      },
    },
  };
}
