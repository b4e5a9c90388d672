/** The query parameters of the JSON:API routes as OpenAPI describes them, exactly as the query parser accepts them. */
import { scalarSchema, type ParameterObject } from './openapi-scalars.ts';
import { PER_PAGE_DEFAULT, PER_PAGE_MAX } from './query.ts';
import type { ResourceDefinition } from './resource.ts';

/** `fields[Type]` as the query parser accepts it: a non-exploded list of unique values. */
export function fieldsParameter(def: ResourceDefinition): ParameterObject {
  return {
    name: `fields[${def.type}]`,
    in: 'query',
    description: `Attributes and relationships of ${def.type} to render (comma-separated, each once); others are left out.`,
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, minItems: 1, items: { enum: [...def.fields] } },
  };
}

/** `per_page` and `offset` of every collection. */
export function pageParameters(): ParameterObject[] {
  return [
    {
      name: 'per_page',
      in: 'query',
      description: 'Resources per page.',
      schema: { type: 'integer', minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT },
    },
    {
      name: 'offset',
      in: 'query',
      description: 'Resources to skip.',
      schema: { type: 'integer', minimum: 0, default: 0 },
    },
  ];
}

/** One `where[name]` parameter per query attribute of `def`. */
export function whereParameters(def: ResourceDefinition): ParameterObject[] {
  return Object.entries(def.where ?? {}).map(([name, w]) => ({
    name: `where[${name}]`,
    in: 'query' as const,
    description: `Only resources whose ${name} equals this value.`,
    schema: scalarSchema(w.type),
  }));
}

/** `include` as the query parser accepts it: a non-exploded list of unique values of `def.includes`. */
export function includeParameter(def: ResourceDefinition): ParameterObject {
  return {
    name: 'include',
    in: 'query',
    description: `Related resources to add under \`included\` (comma-separated, each once).`,
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, minItems: 1, items: { enum: [...(def.includes ?? [])] } },
  };
}

/** `order`: order values of `def`, each once, `-` to reverse, comma-separated. */
export function orderParameter(def: ResourceDefinition): ParameterObject {
  const values = Object.keys(def.order ?? {});
  return {
    name: 'order',
    in: 'query',
    description: `Sort by ${values.join(', ')} (comma-separated, each once; prefix - to reverse).`,
    schema: {
      type: 'string',
      pattern: `^-?(${values.join('|')})(,-?(${values.join('|')}))*$`,
    },
  };
}

/** `filter`: named filters of `def` (comma-separated, each once). */
export function filterParameter(def: ResourceDefinition): ParameterObject {
  return {
    name: 'filter',
    in: 'query',
    description: 'Named filters, all of which must hold (comma-separated, each once).',
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, minItems: 1, items: { enum: Object.keys(def.filters ?? {}) } },
  };
}
