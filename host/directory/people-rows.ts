/** Plain reads of an organization's people for other domains (their columns chosen by the caller, alias `p`). */
import type { Queryable } from '../db/database.ts';

/** People of the organization with these ids, ordered by id (unknown ids and other organizations' are skipped). */
export async function peopleOfOrganization<T extends object>(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
  columns: string,
): Promise<T[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<T>(
    `SELECT ${columns} FROM people p WHERE p.organization_id = $1 AND p.id = ANY($2::bigint[]) ORDER BY p.id`,
    [organizationId, ids],
  );
  return rows;
}

/** The lowest and highest person id of an organization and how many people it has (null ids when none). */
export async function personIdRange(
  db: Queryable,
  organizationId: string,
): Promise<{ lo: number | null; hi: number | null; people: number }> {
  const { rows } = await db.query<{ lo: number | null; hi: number | null; people: number }>(
    'SELECT min(id)::float8 AS lo, max(id)::float8 AS hi, count(*)::int AS people FROM people WHERE organization_id = $1',
    [organizationId],
  );
  return rows[0]!;
}
