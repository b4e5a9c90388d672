/**
 * The query rules of the spec, in one place: `fields[Type]`, `per_page`, `offset`, `where[...]`,
 * `order`, `include`, `filter`. Routes never parse their own query string.
 */
import { IntegerOutOfRangeError, InvalidParameterError, UnknownAttributeError } from '../errors.ts';
import type { ResourceDefinition, WhereDefinition } from './resource.ts';

export const PER_PAGE_DEFAULT = 25;
export const PER_PAGE_MAX = 100;

export interface WhereCondition {
  name: string;
  column: string;
  value: string | number | boolean | Date;
}

export interface OrderTerm {
  value: string;
  expression: string;
  descending: boolean;
}

export interface ResourceQuery {
  /** `fields[Type]` selections, by type. */
  fields: Map<string, Set<string>>;
  include: string[];
}

export interface CollectionQuery extends ResourceQuery {
  perPage: number;
  offset: number;
  where: WhereCondition[];
  order: OrderTerm[];
  filters: string[];
}

/** The request's query string as ordered pairs (repeated keys kept). */
export type QueryPairs = URLSearchParams;

/** Parses `fields[...]` and `include` for a route rendering `primary` and, through includes, `related`. */
export function parseResourceQuery(
  params: QueryPairs,
  primary: ResourceDefinition,
  related: readonly ResourceDefinition[] = [],
): ResourceQuery {
  const byType = new Map([primary, ...related].map((d) => [d.type, d]));
  const fields = new Map<string, Set<string>>();
  for (const [key, raw] of params) {
    const m = /^fields\[(.*)\]$/.exec(key);
    if (!m) continue;
    const type = m[1] ?? '';
    const def = byType.get(type);
    if (!def)
      throw new UnknownAttributeError(
        key,
        `${key} names a type this endpoint does not render; allowed: ${[...byType.keys()].map((t) => `fields[${t}]`).join(', ')}`,
      );
    fields.set(type, parseNameList(key, raw, def.fields, `${key} accepts`));
  }
  const includeRaw = single(params, 'include');
  const include =
    includeRaw === undefined
      ? []
      : [...parseNameList('include', includeRaw, primary.includes ?? [], 'include accepts')];
  return { fields, include };
}

/** Parses every collection parameter for `def`. */
export function parseCollectionQuery(
  params: QueryPairs,
  def: ResourceDefinition,
  related: readonly ResourceDefinition[] = [],
): CollectionQuery {
  const base = parseResourceQuery(params, def, related);
  const perPage = parseInteger(params, 'per_page', PER_PAGE_DEFAULT, 1, PER_PAGE_MAX);
  const offset = parseInteger(params, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);

  const where: WhereCondition[] = [];
  for (const [key, raw] of params) {
    const m = /^where\[(.*)\]$/.exec(key);
    if (!m) continue;
    const name = m[1] ?? '';
    const w = def.where?.[name];
    if (!w)
      throw new UnknownAttributeError(
        key,
        `${key} is not a query attribute of ${def.type}${
          def.where
            ? `; allowed: ${Object.keys(def.where)
                .map((n) => `where[${n}]`)
                .join(', ')}`
            : ''
        }`,
      );
    where.push({ name, column: w.column, value: parseWhereValue(key, w, raw) });
  }

  const order: OrderTerm[] = [];
  const orderRaw = single(params, 'order');
  if (orderRaw !== undefined) {
    const seen = new Set<string>();
    for (const part of orderRaw.split(',')) {
      const descending = part.startsWith('-');
      const value = descending ? part.slice(1) : part;
      const expression = def.order?.[value];
      if (!expression || seen.has(value))
        throw new UnknownAttributeError(
          'order',
          `order accepts ${Object.keys(def.order ?? {}).join(', ') || 'no values'} (prefix - to reverse), each once; got ${JSON.stringify(part)}`,
        );
      seen.add(value);
      order.push({ value, expression, descending });
    }
  }

  const filterRaw = single(params, 'filter');
  const filters =
    filterRaw === undefined
      ? []
      : [...parseNameList('filter', filterRaw, Object.keys(def.filters ?? {}), 'filter accepts')];
  return { ...base, perPage, offset, where, order, filters };
}

function single(params: QueryPairs, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) throw new InvalidParameterError(name, `${name} may be given once`);
  return all[0];
}

function parseNameList(parameter: string, raw: string, allowed: readonly string[], what: string): Set<string> {
  const names = raw.split(',');
  const out = new Set<string>();
  for (const name of names) {
    if (!allowed.includes(name) || out.has(name)) {
      throw new UnknownAttributeError(
        parameter,
        `${what} a comma-separated list of unique values from: ${allowed.join(', ') || '(none)'}; got ${JSON.stringify(name)}`,
      );
    }
    out.add(name);
  }
  return out;
}

function parseInteger(params: QueryPairs, name: string, fallback: number, min: number, max: number): number {
  const raw = single(params, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new IntegerOutOfRangeError(name);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new IntegerOutOfRangeError(name);
  return n;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses an ISO 8601 date or date-time; `undefined` when it is not one. Zone-less values are UTC. */
export function parseIsoDateTime(raw: string): Date | undefined {
  if (!ISO_8601.test(raw)) return undefined;
  const withZone = /T/.test(raw) && !/(Z|[+-]\d{2}:?\d{2})$/.test(raw) ? `${raw}Z` : raw;
  const date = new Date(withZone);
  // Years 1000–9999 only: PostgreSQL has no year 0, and PGlite sends a Date before year 1000 with an
  // unpadded year (0001 would be stored as 2001).
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1000 || date.getUTCFullYear() > 9999) return undefined;
  return date;
}

function parseWhereValue(key: string, w: WhereDefinition, raw: string): string | number | boolean | Date {
  switch (w.type) {
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new InvalidParameterError(key, `${key} must be true or false`);
    case 'primary_key':
      if (/^[1-9]\d{0,17}$/.test(raw)) return raw;
      throw new InvalidParameterError(key, `${key} must be an id`);
    case 'integer':
      if (/^-?\d{1,15}$/.test(raw)) return Number(raw);
      throw new InvalidParameterError(key, `${key} must be an integer`);
    case 'date_time': {
      const d = parseIsoDateTime(raw);
      if (d) return d;
      throw new InvalidParameterError(key, `${key} must be an ISO 8601 date-time`);
    }
    case 'string':
      // PostgreSQL text cannot hold NUL; such a value matches nothing and must not reach the database.
      if (raw.includes('\u0000')) throw new InvalidParameterError(key, `${key} must not contain NUL characters`);
      return raw;
  }
}
