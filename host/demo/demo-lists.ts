/** The seeded Lists have rules but no results until they run; the demo runs them once so the add-on has people to message. */
import type { Database, Queryable } from '../db/database.ts';
import { DEMO_ORGANIZATION } from './seed/demo.ts';
import { organizationIdBySlug } from '../directory/index.ts';
import { firstListId, listsNeverRun, runList } from '../people/index.ts';

/** Runs every List of the demo organization that has never run; returns how many ran. */
export async function runDemoLists(db: Database, now: Date): Promise<number> {
  const organizationId = await organizationIdBySlug(db, DEMO_ORGANIZATION.slug);
  if (!organizationId) return 0;
  const lists = await listsNeverRun(db, organizationId);
  for (const listId of lists) await runList(db, { organizationId, listId, now });
  return lists.length;
}

/** The List the demo points at: the first one with people. */
export async function demoListId(db: Queryable): Promise<string | undefined> {
  const organizationId = await organizationIdBySlug(db, DEMO_ORGANIZATION.slug);
  return organizationId ? firstListId(db, organizationId) : undefined;
}
