/**
 * Resource definitions: what a JSON:API resource type exposes — attributes with types, relationships,
 * links, the `fields[Type]` values it accepts, includes, order values, `where[]` attributes and named
 * filters. Routes are declared from these; the query rules and envelopes follow from them.
 */

export type AttributeType = 'string' | 'integer' | 'boolean' | 'date_time' | 'primary_key' | 'array' | 'object';

/** Values a route's SQL may read: a column or expression of the route's own query. */
export type SqlExpression = string;

export interface AttributeDefinition {
  type: AttributeType;
  /** What the value means (the API reference shows it). */
  description?: string;
  /** The value may be `null`. */
  nullable?: boolean;
  /** The only values it takes. */
  enum?: readonly string[];
  /** Element type of an `array` attribute. */
  items?: Exclude<AttributeType, 'array' | 'object'>;
  /** Reads the value from a row; default: `row[name]`. */
  read?: (row: Row) => unknown;
}

export interface RelationshipDefinition {
  /** The related resource type. */
  type: string;
  /** Reads the related id from a row; `null` when there is none. */
  id: (row: Row) => string | number | null | undefined;
  /** `links.related` of the relationship, when the API has such a route. */
  related?: (row: Row, baseUrl: string) => string;
}

export interface WhereDefinition {
  type: Exclude<AttributeType, 'array' | 'object'>;
  /** SQL the value is compared to with `=`. */
  column: SqlExpression;
}

/** A named filter: a SQL condition, possibly using the requester (`$n` parameters through `param`). */
export type FilterDefinition = (ctx: FilterContext) => SqlExpression;

export interface FilterContext {
  /** Adds a parameter and returns its `$n` placeholder. */
  param(value: unknown): string;
  /** The requesting person's id. */
  personId: string;
}

export type Row = Record<string, unknown>;

export interface ResourceDefinition {
  type: string;
  /** What the resource is (the API reference shows it). */
  description?: string;
  attributes: Record<string, AttributeDefinition>;
  /** Values accepted by `fields[Type]`; the attributes and relationships they name are rendered. */
  fields: readonly string[];
  relationships?: Record<string, RelationshipDefinition>;
  /** `links` of each resource object; must contain `self`. */
  links: (row: Row, baseUrl: string) => { self: string } & Record<string, string>;
  /** `include` values. */
  includes?: readonly string[];
  /** `order` values → SQL expression. */
  order?: Record<string, SqlExpression>;
  /** Order used when the request gives none (always ends with a unique key, so pages are stable). */
  defaultOrder?: SqlExpression;
  /** `where[name]` attributes. */
  where?: Record<string, WhereDefinition>;
  /** Named filters (`filter=a,b`). */
  filters?: Record<string, FilterDefinition>;
  /** `meta.can_query_by` of collections of this type. */
  canQueryBy?: readonly string[];
  /** Reads the id; default `row.id`. */
  id?: (row: Row) => string | number;
}

export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | null; links?: { related: string } }>;
  links: Record<string, string>;
}

/** Renders one row; `fields` (from `fields[Type]`) limits the attributes and relationships shown. */
export function renderResource(
  def: ResourceDefinition,
  row: Row,
  baseUrl: string,
  fields?: ReadonlySet<string>,
): ResourceObject {
  const shown = (name: string) => !fields || fields.has(name);
  const attributes: Record<string, unknown> = {};
  for (const [name, attr] of Object.entries(def.attributes)) {
    if (!shown(name)) continue;
    attributes[name] = serializeValue(attr.type, attr.read ? attr.read(row) : row[name]);
  }
  const resource: ResourceObject = {
    id: String(def.id ? def.id(row) : row.id),
    type: def.type,
    attributes,
    links: def.links(row, baseUrl),
  };
  if (def.relationships) {
    const relationships: NonNullable<ResourceObject['relationships']> = {};
    for (const [name, rel] of Object.entries(def.relationships)) {
      if (!shown(name)) continue;
      const id = rel.id(row);
      relationships[name] = {
        data: id === null || id === undefined ? null : { type: rel.type, id: String(id) },
        ...(rel.related ? { links: { related: rel.related(row, baseUrl) } } : {}),
      };
    }
    resource.relationships = relationships;
  }
  return resource;
}

/** An attribute value as the API renders it (timestamps to the second, keys as text, integers as numbers). */
export function serializeValue(type: AttributeType, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'date_time':
      return toIsoTimestamp(value);
    case 'primary_key':
      return (value as string | number | bigint).toString();
    case 'integer':
      return Number(value);
    default:
      return value;
  }
}

/** ISO 8601 in UTC with seconds precision, e.g. `2026-11-21T20:01:00Z`. */
export function toIsoTimestamp(value: unknown): string {
  // Already in the API's form (see isoTimestampSql).
  if (typeof value === 'string' && value.length === 20 && value[10] === 'T' && value[19] === 'Z') return value;
  const date = value instanceof Date ? value : new Date(String(value));
  const iso = date.toISOString();
  // `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 characters) for years 0–9999; extended years keep their own form.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}
