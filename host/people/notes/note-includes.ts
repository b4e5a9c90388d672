/** Included resources of Note responses: category, created_by, person. */
import type { Queryable } from '../../db/database.ts';
import { idsOf } from '../../jsonapi/collection-sql.ts';
import type { IncludedGroup } from '../../jsonapi/document.ts';
import type { Row } from '../../jsonapi/resource.ts';
import { NOTE_CATEGORY_SELECT, noteCategoryResource } from './note-category-resource.ts';
import { personResource } from '../person-resource.ts';
import { loadPeople } from '../person-sql.ts';

/** Loads the groups named by `include` for these note rows. */
export async function noteIncludes(
  db: Queryable,
  organizationId: string,
  rows: readonly Row[],
  include: readonly string[],
): Promise<IncludedGroup[]> {
  const groups: IncludedGroup[] = [];
  if (include.includes('category')) {
    const ids = idsOf(rows, 'note_category_id');
    const categories = ids.length
      ? (
          await db.query<Row>(
            `SELECT ${NOTE_CATEGORY_SELECT} FROM note_categories c WHERE c.organization_id = $1 AND c.id = ANY($2::bigint[]) ORDER BY c.id`,
            [organizationId, ids],
          )
        ).rows
      : [];
    groups.push({ definition: noteCategoryResource, rows: categories });
  }
  if (include.includes('created_by'))
    groups.push({
      definition: personResource,
      rows: await loadPeople(db, organizationId, idsOf(rows, 'created_by_id')),
    });
  if (include.includes('person'))
    groups.push({ definition: personResource, rows: await loadPeople(db, organizationId, idsOf(rows, 'person_id')) });
  return groups;
}
