/**
 * The associations of a list under `/people/v2/lists/{list_id}/`: each loads the list as the person sees it
 * (404 when it is not in the organization), then the related record or page. One named handler per route;
 * `listReadRoutes` (list-reads.ts) lists them in order.
 */
import type { RequestHandler } from 'express';
import { organizationResource } from '../api/organization-resource.ts';
import type { Database } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { queryCollection } from '../jsonapi/collection-sql.ts';
import type { ResourceDefinition, Row } from '../jsonapi/resource.ts';
import { collectionRoute, pathId, singleRoute } from '../jsonapi/routes.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { BULKMAIL_SYNC_STATUS_SELECT, bulkmailSyncStatusResource } from './bulkmail-sync-status-resource.ts';
import { CAMPUS_SELECT, campusResource } from './campus-resource.ts';
import { LIST_CATEGORY_SELECT, listCategoryResource } from './list-category-resource.ts';
import { loadList } from './list-rows.ts';
import { LIST_RESULT_SELECT, listResultResource } from './list-result-resource.ts';
import { LIST_SHARE_SELECT, listShareResource } from './list-share-resource.ts';
import { LIST_STAR_SELECT, listStarResource } from './list-star-resource.ts';
import { loadOwned } from './org-records.ts';
import { personResource } from './person-resource.ts';
import { PERSON_SELECT, loadPersonRow, personIncludes } from './person-sql.ts';
import { scopeOf, type RequestScope } from './request-scope.ts';
import { RULE_SELECT, ruleResource } from './rule-resource.ts';
import { joinPeople } from '../directory/index.ts';

/** `GET /lists/{list_id}/campus`. */
export const campusOfList = (db: Database): RequestHandler =>
  toOne(db, campusResource, (list, scope) =>
    loadOwned(db, 'campuses', CAMPUS_SELECT, scope.organizationId, list.campus_id as number | null),
  );

/** `GET /lists/{list_id}/category`. */
export const categoryOfList = (db: Database): RequestHandler =>
  toOne(db, listCategoryResource, (list, scope) =>
    loadOwned(
      db,
      'list_categories',
      LIST_CATEGORY_SELECT,
      scope.organizationId,
      list.list_category_id as number | null,
    ),
  );

/** `GET /lists/{list_id}/created_by`. */
export const createdByOfList = (db: Database): RequestHandler =>
  toOne(
    db,
    personResource,
    (list, scope) => loadPersonRow(db, scope.organizationId, list.created_by_id as string | null),
    [organizationResource],
  );

/** `GET /lists/{list_id}/updated_by`. */
export const updatedByOfList = (db: Database): RequestHandler =>
  toOne(
    db,
    personResource,
    (list, scope) => loadPersonRow(db, scope.organizationId, list.updated_by_id as string | null),
    [organizationResource],
  );

/** `GET /lists/{list_id}/bulkmail_sync_status`. */
export const bulkmailSyncStatusOfList = (db: Database): RequestHandler =>
  toOne(
    db,
    bulkmailSyncStatusResource,
    async (list) =>
      (
        await db.query<Row>(
          `SELECT ${BULKMAIL_SYNC_STATUS_SELECT} FROM bulkmail_sync_statuses b WHERE b.list_id = $1`,
          [list.id],
        )
      ).rows[0],
  );

/** `GET /lists/{list_id}/star`: the requester's own star of the list. */
export const starOfList = (db: Database): RequestHandler =>
  toOne(
    db,
    listStarResource,
    async (list, scope) =>
      (
        await db.query<Row>(`SELECT ${LIST_STAR_SELECT} FROM list_stars s WHERE s.list_id = $1 AND s.person_id = $2`, [
          list.id,
          scope.personId,
        ])
      ).rows[0],
  );

/** How a collection association of a list is read. */
interface ListRows {
  select: string;
  from: string;
  listColumn: string;
  idColumn: string;
  tieBreaker: string;
}

const RESULTS: ListRows = {
  select: LIST_RESULT_SELECT,
  from: 'list_results r',
  listColumn: 'r.list_id',
  idColumn: 'r.id',
  tieBreaker: 'r.id ASC',
};
const PEOPLE: ListRows = {
  select: PERSON_SELECT,
  from: `list_results r ${joinPeople('p', 'r.person_id')}`,
  listColumn: 'r.list_id',
  idColumn: 'p.id',
  tieBreaker: 'p.id ASC',
};
const RULES: ListRows = {
  select: RULE_SELECT,
  from: 'list_rules r',
  listColumn: 'r.list_id',
  idColumn: 'r.id',
  tieBreaker: 'r.id ASC',
};
const SHARES: ListRows = {
  select: LIST_SHARE_SELECT,
  from: 'list_shares s',
  listColumn: 's.list_id',
  idColumn: 's.id',
  tieBreaker: 's.id ASC',
};

/** `GET /lists/{list_id}/list_results`. */
export const resultsOfList = (db: Database): RequestHandler => toMany(db, listResultResource, RESULTS);
/** `GET /lists/{list_id}/list_results/{id}`. */
export const resultOfList = (db: Database): RequestHandler => oneOfMany(db, listResultResource, RESULTS);
/** `GET /lists/{list_id}/people`: the people of its current results. */
export const peopleOfList = (db: Database): RequestHandler =>
  toMany(db, personResource, PEOPLE, [organizationResource]);
/** `GET /lists/{list_id}/rules`. */
export const rulesOfList = (db: Database): RequestHandler => toMany(db, ruleResource, RULES);
/** `GET /lists/{list_id}/rules/{id}`. */
export const ruleOfList = (db: Database): RequestHandler => oneOfMany(db, ruleResource, RULES);
/** `GET /lists/{list_id}/shares`. */
export const sharesOfList = (db: Database): RequestHandler => toMany(db, listShareResource, SHARES);
/** `GET /lists/{list_id}/shares/{id}`. */
export const shareOfList = (db: Database): RequestHandler => oneOfMany(db, listShareResource, SHARES);

/** A to_one association of a list: loads the list (404 when not in the organization), then the related row. */
function toOne(
  db: Database,
  definition: ResourceDefinition,
  load: (list: Row, scope: RequestScope) => Promise<Row | undefined>,
  related: readonly ResourceDefinition[] = [],
): RequestHandler {
  return singleRoute(
    definition,
    async (req, query) => {
      const scope = scopeOf(req);
      const list = await loadList(db, scope, pathId(req, 'list_id'));
      const row = list && (await load(list, scope));
      return {
        row,
        parent: { id: list ? String(list.id) : '', type: 'List' },
        included: definition === personResource ? personIncludes(row, query.include) : [],
      };
    },
    { related },
  );
}

/** A collection association of a list. */
function toMany(
  db: Database,
  definition: ResourceDefinition,
  sql: ListRows,
  related: readonly ResourceDefinition[] = [],
): RequestHandler {
  return collectionRoute(
    definition,
    async (req, query) => {
      const scope = scopeOf(req);
      const list = await loadList(db, scope, pathId(req, 'list_id'));
      if (!list) throw new NotFoundError();
      const params = new SqlParams([list.id]);
      const page = await queryCollection(db, definition, query, {
        select: sql.select,
        from: sql.from,
        conditions: [`${sql.listColumn} = $1`],
        params,
        tieBreaker: sql.tieBreaker,
        personId: scope.personId,
      });
      const included =
        definition === personResource && query.include.includes('organization')
          ? [{ definition: organizationResource, rows: [{ id: scope.organizationId }] }]
          : [];
      return { ...page, parent: { id: String(list.id), type: 'List' }, included };
    },
    { related },
  );
}

/** The single route the items of a collection association link to as their self. */
function oneOfMany(db: Database, definition: ResourceDefinition, sql: ListRows): RequestHandler {
  return singleRoute(definition, async (req) => {
    const scope = scopeOf(req);
    const list = await loadList(db, scope, pathId(req, 'list_id'));
    const row =
      list &&
      (
        await db.query<Row>(
          `SELECT ${sql.select} FROM ${sql.from} WHERE ${sql.listColumn} = $1 AND ${sql.idColumn} = $2`,
          [list.id, pathId(req, 'id')],
        )
      ).rows[0];
    return { row, parent: { id: list ? String(list.id) : '', type: 'List' } };
  });
}
