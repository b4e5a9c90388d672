/** Included resources of List responses: campus, category, created_by, updated_by, bulkmail_sync_status, people, rules, shares. */
import type { Queryable } from '../db/database.ts';
import { idsOf } from '../jsonapi/collection-sql.ts';
import type { IncludedGroup } from '../jsonapi/document.ts';
import type { Row } from '../jsonapi/resource.ts';
import { BULKMAIL_SYNC_STATUS_SELECT, bulkmailSyncStatusResource } from './bulkmail-sync-status-resource.ts';
import { CAMPUS_SELECT, campusResource } from './campus-resource.ts';
import { LIST_CATEGORY_SELECT, listCategoryResource } from './list-category-resource.ts';
import { LIST_SHARE_SELECT, listShareResource } from './list-share-resource.ts';
import { PERSON_SELECT, loadPeople } from './person-sql.ts';
import { personResource } from './person-resource.ts';
import { RULE_SELECT, ruleResource } from './rule-resource.ts';
import { joinPeople } from '../directory/index.ts';

/** Every type a List response may include (for `fields[Type]`). */
export const LIST_RELATED = [
  campusResource,
  listCategoryResource,
  personResource,
  bulkmailSyncStatusResource,
  ruleResource,
  listShareResource,
];

async function byIds(db: Queryable, sql: string, organizationId: string, ids: readonly string[]): Promise<Row[]> {
  return ids.length ? (await db.query<Row>(sql, [organizationId, ids])).rows : [];
}

/** What an include's loader is given: the organization and the List rows of the response. */
interface IncludeInput {
  db: Queryable;
  organizationId: string;
  rows: readonly Row[];
  listIds: string[];
}

/** Each include of a List response: its resource and how its rows load (scoped to the organization). */
const INCLUDES: Record<string, (input: IncludeInput) => Promise<IncludedGroup>> = {
  campus: async ({ db, organizationId, rows }) => ({
    definition: campusResource,
    rows: await byIds(
      db,
      `SELECT ${CAMPUS_SELECT} FROM campuses c WHERE c.organization_id = $1 AND c.id = ANY($2::bigint[]) ORDER BY c.id`,
      organizationId,
      idsOf(rows, 'campus_id'),
    ),
  }),
  category: async ({ db, organizationId, rows }) => ({
    definition: listCategoryResource,
    rows: await byIds(
      db,
      `SELECT ${LIST_CATEGORY_SELECT} FROM list_categories c WHERE c.organization_id = $1 AND c.id = ANY($2::bigint[]) ORDER BY c.id`,
      organizationId,
      idsOf(rows, 'list_category_id'),
    ),
  }),
  created_by: async ({ db, organizationId, rows }) => ({
    definition: personResource,
    rows: await loadPeople(db, organizationId, idsOf(rows, 'created_by_id')),
  }),
  updated_by: async ({ db, organizationId, rows }) => ({
    definition: personResource,
    rows: await loadPeople(db, organizationId, idsOf(rows, 'updated_by_id')),
  }),
  bulkmail_sync_status: async ({ db, organizationId, listIds }) => ({
    definition: bulkmailSyncStatusResource,
    rows: await byIds(
      db,
      `SELECT ${BULKMAIL_SYNC_STATUS_SELECT} FROM bulkmail_sync_statuses b JOIN lists l ON l.id = b.list_id WHERE l.organization_id = $1 AND b.list_id = ANY($2::bigint[]) ORDER BY b.id`,
      organizationId,
      listIds,
    ),
  }),
  people: async ({ db, organizationId, listIds }) => ({
    definition: personResource,
    rows: await byIds(
      db,
      `SELECT DISTINCT ${PERSON_SELECT}, p.id AS sort FROM list_results r ${joinPeople('p', 'r.person_id')} WHERE p.organization_id = $1 AND r.list_id = ANY($2::bigint[]) ORDER BY sort`,
      organizationId,
      listIds,
    ),
  }),
  rules: async ({ db, organizationId, listIds }) => ({
    definition: ruleResource,
    rows: await byIds(
      db,
      `SELECT ${RULE_SELECT} FROM list_rules r JOIN lists l ON l.id = r.list_id WHERE l.organization_id = $1 AND r.list_id = ANY($2::bigint[]) ORDER BY r.list_id, r.position, r.id`,
      organizationId,
      listIds,
    ),
  }),
  shares: async ({ db, organizationId, listIds }) => ({
    definition: listShareResource,
    rows: await byIds(
      db,
      `SELECT ${LIST_SHARE_SELECT} FROM list_shares s JOIN lists l ON l.id = s.list_id WHERE l.organization_id = $1 AND s.list_id = ANY($2::bigint[]) ORDER BY s.id`,
      organizationId,
      listIds,
    ),
  }),
};

/** Loads the groups named by `include` for these list rows, in the order named (unknown names load nothing). */
export async function listIncludes(
  db: Queryable,
  organizationId: string,
  rows: readonly Row[],
  include: readonly string[],
): Promise<IncludedGroup[]> {
  const input: IncludeInput = { db, organizationId, rows, listIds: idsOf(rows, 'id') };
  const groups: IncludedGroup[] = [];
  for (const name of include) {
    const load = Object.hasOwn(INCLUDES, name) ? INCLUDES[name] : undefined;
    if (load) groups.push(await load(input));
  }
  return groups;
}
