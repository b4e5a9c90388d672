/** Reading Person rows of an organization for the Person resource. */
import type { Queryable } from '../db/database.ts';
import { organizationResource } from '../api/organization-resource.ts';
import type { IncludedGroup } from '../jsonapi/document.ts';
import type { Row } from '../jsonapi/resource.ts';
import { peopleOfOrganization } from '../directory/index.ts';

/** Columns of a Person row (alias `p`). */
export const PERSON_SELECT = 'p.id::text AS id, p.organization_id::text AS organization_id, p.first_name, p.last_name';

/** People of the organization with these ids (unknown ids are skipped). */
export async function loadPeople(db: Queryable, organizationId: string, ids: readonly string[]): Promise<Row[]> {
  return peopleOfOrganization<Row>(db, organizationId, ids, PERSON_SELECT);
}

/** One person of the organization, or undefined. */
export async function loadPersonRow(
  db: Queryable,
  organizationId: string,
  id: string | null | undefined,
): Promise<Row | undefined> {
  if (!id) return undefined;
  return (await loadPeople(db, organizationId, [id]))[0];
}

/** Included groups of a Person response (`include=organization`). */
export function personIncludes(row: Row | undefined, include: readonly string[]): IncludedGroup[] {
  return row && include.includes('organization')
    ? [{ definition: organizationResource, rows: [{ id: row.organization_id }] }]
    : [];
}
