/** Turns a parsed collection query into SQL clauses with `$n` parameters. */
import type { CollectionQuery } from './query.ts';
import type { ResourceDefinition } from './resource.ts';

/** Collects parameter values and hands out their placeholders. */
export class SqlParams {
  readonly values: unknown[];
  constructor(initial: readonly unknown[] = []) {
    this.values = [...initial];
  }
  /** Adds a value; returns its `$n` placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `where[...]` and named filters as SQL conditions (to be joined with AND). */
export function queryConditions(
  def: ResourceDefinition,
  query: CollectionQuery,
  params: SqlParams,
  personId: string,
): string[] {
  const conditions: string[] = [];
  for (const w of query.where) {
    const type = def.where?.[w.name]?.type;
    // Timestamps are rendered to the second, so an exact match compares at that precision.
    const column = type === 'date_time' ? `date_trunc('second', ${w.column})` : w.column;
    conditions.push(`${column} = ${params.add(w.value)}`);
  }
  for (const name of query.filters) {
    const filter = def.filters?.[name];
    if (filter) conditions.push(`(${filter({ param: (v) => params.add(v), personId })})`);
  }
  return conditions;
}

/** `ORDER BY …` from `order` (or the definition's default), always ending in a stable tie-breaker. */
export function orderClause(def: ResourceDefinition, query: CollectionQuery, tieBreaker: string): string {
  const terms = query.order.map((o) => `${o.expression} ${o.descending ? 'DESC' : 'ASC'} NULLS LAST`);
  if (terms.length === 0 && def.defaultOrder) terms.push(def.defaultOrder);
  terms.push(tieBreaker);
  return `ORDER BY ${terms.join(', ')}`;
}

/** `LIMIT … OFFSET …` of the page. */
export function pageClause(query: CollectionQuery, params: SqlParams): string {
  return `LIMIT ${params.add(query.perPage)} OFFSET ${params.add(query.offset)}`;
}

/**
 * A timestamptz as the API renders it (ISO 8601, UTC, to the second, e.g. `2026-11-21T20:01:00Z`), formatted
 * by the database: the driver then passes text through instead of parsing a Date that is formatted back.
 */
export function isoTimestampSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}
