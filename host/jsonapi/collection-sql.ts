/**
 * Runs a parsed collection query against one relation: the route gives its SELECT list, FROM clause
 * and scoping conditions; `where[]`, named filters, order and paging come from the definition.
 */
import type { Queryable } from '../db/database.ts';
import type { CollectionQuery } from './query.ts';
import type { ResourceDefinition, Row } from './resource.ts';
import { orderClause, pageClause, queryConditions, type SqlParams } from './sql.ts';

/** The route-specific parts of a collection query. */
export interface CollectionSql {
  /** SELECT list, e.g. `n.id::text AS id, n.note`. */
  select: string;
  /** FROM clause body, e.g. `notes n` or `(…) l`. */
  from: string;
  /** Conditions scoping the collection (organization, parent); their parameters are in `params`. */
  conditions: readonly string[];
  params: SqlParams;
  /** Unique key ending every order, so pages are stable. */
  tieBreaker: string;
  /** The requester, for named filters. */
  personId: string;
}

/** Column carrying the collection's total on every row of the page (`count(*) OVER ()`). */
const TOTAL = 'collection_total__';

/**
 * The page of rows and the total count of the collection under the query, in one statement: the total
 * rides on every row as a window count. Only a page past the end (no rows, offset > 0) needs a second
 * statement to learn the total.
 */
export async function queryCollection(
  db: Queryable,
  def: ResourceDefinition,
  query: CollectionQuery,
  sql: CollectionSql,
): Promise<{ rows: Row[]; total: number }> {
  const conditions = [...sql.conditions, ...queryConditions(def, query, sql.params, sql.personId)];
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const countParams = [...sql.params.values];
  const page = pageClause(query, sql.params);
  const { rows } = await db.query<Row>(
    `SELECT ${sql.select}, count(*) OVER () AS ${TOTAL} FROM ${sql.from} ${where} ${orderClause(def, query, sql.tieBreaker)} ${page}`,
    sql.params.values,
  );
  if (rows.length > 0) return { rows, total: Number(rows[0]![TOTAL]) };
  if (query.offset === 0) return { rows, total: 0 };
  const count = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${sql.from} ${where}`,
    countParams,
  );
  return { rows, total: Number(count.rows[0]?.total ?? 0) };
}

/** Distinct non-null ids of `key` across rows (for loading included resources). */
export function idsOf(rows: readonly Row[], key: string): string[] {
  return [
    ...new Set(
      rows
        .map((r) => r[key])
        .filter((v): v is string | number => v !== null && v !== undefined)
        .map(String),
    ),
  ];
}
