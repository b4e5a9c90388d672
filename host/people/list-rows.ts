/** One list of the organization read as the requester sees it (its stars, views and shares folded in). */
import type { Queryable } from '../db/database.ts';
import type { Row } from '../jsonapi/resource.ts';
import { LIST_ROWS_SQL, LIST_SELECT } from './list-resource.ts';

/** One list of the organization as the person sees it, or undefined. */
export async function loadList(
  db: Queryable,
  scope: { organizationId: string; personId: string },
  id: string,
): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${LIST_SELECT} FROM ${LIST_ROWS_SQL} WHERE l.id = $3`, [
    scope.organizationId,
    scope.personId,
    id,
  ]);
  return rows[0];
}
