/**
 * What a page outside the people API shows of one List (the demo's List page): its settings, run state and
 * rules, and its people a page at a time. Every read is scoped to the organization: another organization's List
 * is as unknown as a missing one.
 */
import type { Queryable } from '../db/database.ts';
import { joinPeople } from '../directory/index.ts';
import { refreshDueSql } from './refresh-due-lists.ts';

/** One rule of a List, as the API's Rule resource names it. */
export interface ListRuleSummary {
  attribute: string;
  operator: string;
  value: string;
}

/** A List with its run state and rules. */
export interface ListDetails {
  id: string;
  name: string;
  description: string | null;
  total_people: number;
  refreshed_at: Date | null;
  /** `never_run`, `complete`, `stale` or `failed` (docs/people-api.md, States). */
  status: string;
  invalid: boolean;
  subset: 'all' | 'any';
  returns: string;
  include_inactive: boolean;
  auto_refresh: boolean;
  auto_refresh_frequency: string;
  /** Auto-refresh is on and its last run is at least its frequency old (the List scheduler runs it next). */
  refresh_due: boolean;
  rules: ListRuleSummary[];
}

/** One person of a List's results: their name, and since when the List has them. */
export interface ListPerson {
  id: string;
  first_name: string;
  last_name: string;
  /** When the person entered the List (`ListResult.created_at`). */
  added_at: Date;
}

/** One List of the organization with its rules in position order, or undefined; `now` decides `refresh_due`. */
export async function listDetails(
  db: Queryable,
  organizationId: string,
  id: string,
  now: Date,
): Promise<ListDetails | undefined> {
  const { rows } = await db.query<Omit<ListDetails, 'rules'>>(
    `SELECT id::text, name, description, total_people, refreshed_at, status, invalid, subset, returns, include_inactive,
       auto_refresh, auto_refresh_frequency, ${refreshDueSql('$3::timestamptz')} AS refresh_due
     FROM lists WHERE organization_id = $1 AND id = $2`,
    [organizationId, id, now],
  );
  const list = rows[0];
  if (!list) return undefined;
  const rules = await db.query<ListRuleSummary>(
    'SELECT attribute, operator, value FROM list_rules WHERE list_id = $1 ORDER BY position, id',
    [list.id],
  );
  return { ...list, rules: rules.rows };
}

/**
 * A page of a List's people (by last name, first name, id) and how many people its results hold. The List must be
 * the organization's (`listDetails` first): the people read are the organization's only in any case.
 */
export async function listPeoplePage(
  db: Queryable,
  organizationId: string,
  listId: string,
  page: { limit: number; offset: number },
): Promise<{ people: ListPerson[]; total: number }> {
  const from = `FROM list_results r ${joinPeople('p', 'r.person_id')} WHERE r.list_id = $1 AND p.organization_id = $2`;
  const people = await db.query<ListPerson>(
    `SELECT p.id::text AS id, p.first_name, p.last_name, r.created_at AS added_at ${from}
     ORDER BY p.last_name, p.first_name, p.id LIMIT $3 OFFSET $4`,
    [listId, organizationId, page.limit, page.offset],
  );
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total ${from}`, [listId, organizationId]);
  return { people: people.rows, total: count.rows[0]!.total };
}
