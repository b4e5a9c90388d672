/** Checks that an id assigned in a write names a record of the requester's organization. */
import type { Queryable } from '../db/database.ts';
import { AttributeResourceNotFoundError } from '../errors.ts';

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
