/** Records of the requester's organization by id: an id a write assigns checked, a parent or to_one association loaded. */
import type { Queryable } from '../db/database.ts';
import { AttributeResourceNotFoundError } from '../errors.ts';
import type { Row } from '../jsonapi/resource.ts';

const TABLES = {
  note_categories: 'note_categories',
  people: 'people',
  campuses: 'campuses',
  list_categories: 'list_categories',
} as const;

/** Throws 422 attribute_resource_not_found (naming `parameter`) unless `id` is a row of `table` in the organization. */
export async function requireOrganizationRecord(
  db: Queryable,
  table: keyof typeof TABLES,
  organizationId: string,
  id: string,
  parameter: string,
): Promise<void> {
  const { rows } = await db.query(`SELECT 1 FROM ${TABLES[table]} WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  if (rows.length === 0) throw new AttributeResourceNotFoundError(parameter);
}

/** A record of the organization's `table` by id (for belongs-to parents and to_one associations), or undefined. */
export async function loadOwned(
  db: Queryable,
  table: 'campuses' | 'list_categories',
  select: string,
  organizationId: string,
  id: number | string | null,
): Promise<Row | undefined> {
  if (id === null || id === undefined) return undefined;
  return (
    await db.query<Row>(`SELECT ${select} FROM ${table} c WHERE c.organization_id = $1 AND c.id = $2`, [
      organizationId,
      String(id),
    ])
  ).rows[0];
}
