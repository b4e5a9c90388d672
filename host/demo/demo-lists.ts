/** The seeded Lists have rules but no results until they run; the demo runs them once so the add-on has people to message. */
import type { Database, Queryable } from '../db/database.ts';
import { runList } from '../people/run-list.ts';

/** Runs every List of the demo organization that has never run; returns how many ran. */
export async function runDemoLists(db: Database, now: Date): Promise<number> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    "SELECT l.id::text, l.organization_id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'demo' AND l.refreshed_at IS NULL ORDER BY l.id",
  );
  for (const list of rows) await runList(db, { organizationId: list.organization_id, listId: list.id, now });
  return rows.length;
}

/** The List the demo points at: the first one with people. */
export async function demoListId(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT l.id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'demo' ORDER BY (l.total_people = 0), l.id LIMIT 1",
  );
  return rows[0]?.id;
}

/** The organization's first List with people (any List when none has): where its List page mounts add-ons. */
export async function firstListId(db: Queryable, organizationId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM lists WHERE organization_id = $1 ORDER BY (total_people = 0), id LIMIT 1',
    [organizationId],
  );
  return rows[0]?.id;
}
