/** A List's name, description and size for pages outside the people API (the demo's Lists), and the Lists not yet run. */
import type { Queryable } from '../db/database.ts';

export interface ListSummary {
  id: string;
  name: string;
  description: string;
  total_people: number;
  refreshed_at: Date | null;
}

const SUMMARY = 'SELECT id::text, name, description, total_people, refreshed_at FROM lists';

/** The organization's Lists by name. */
export async function listSummaries(db: Queryable, organizationId: string): Promise<ListSummary[]> {
  return (await db.query<ListSummary>(`${SUMMARY} WHERE organization_id = $1 ORDER BY name, id`, [organizationId]))
    .rows;
}

/** The organization's first List with people (any List when none has). */
export async function firstListId(db: Queryable, organizationId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM lists WHERE organization_id = $1 ORDER BY (total_people = 0), lists.id LIMIT 1',
    [organizationId],
  );
  return rows[0]?.id;
}

/** The ids of the organization's Lists that have never run, in id order. */
export async function listsNeverRun(db: Queryable, organizationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM lists WHERE organization_id = $1 AND refreshed_at IS NULL ORDER BY lists.id',
    [organizationId],
  );
  return rows.map((r) => r.id);
}
