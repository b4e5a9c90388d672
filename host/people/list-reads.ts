/**
 * List reads: the Organization collection `GET /people/v2/lists` (with named filters through `filter=`),
 * the belongs-to collections under campuses and list categories, `GET /lists/{id}` (which records the
 * view for recently_viewed) and every association under `/lists/{list_id}/` (list-associations.ts) — one
 * named handler per route, listed in order by `listReadRoutes`.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type { Database } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { queryCollection } from '../jsonapi/collection-sql.ts';
import type { CollectionQuery } from '../jsonapi/query.ts';
import { collectionRoute, pathId, singleRoute, type CollectionLoad } from '../jsonapi/routes.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { CAMPUS_SELECT } from './campus-resource.ts';
import {
  bulkmailSyncStatusOfList,
  campusOfList,
  categoryOfList,
  createdByOfList,
  peopleOfList,
  resultOfList,
  resultsOfList,
  ruleOfList,
  rulesOfList,
  shareOfList,
  sharesOfList,
  starOfList,
  updatedByOfList,
} from './list-associations.ts';
import { LIST_CATEGORY_SELECT } from './list-category-resource.ts';
import { LIST_RELATED, listIncludes } from './list-includes.ts';
import { LIST_ROWS_SQL, LIST_SELECT, listResource } from './list-resource.ts';
import { loadList } from './list-rows.ts';
import { loadOwned } from './org-records.ts';
import { organizationParent, scopeOf } from './request-scope.ts';

/** The List read routes, in the order they are matched. */
export function listReadRoutes(db: Database): Router {
  const router = Router();
  router.get('/lists', listsOfOrganization(db));
  router.get('/campuses/:campus_id/lists', listsOfCampus(db));
  router.get('/list_categories/:list_category_id/lists', listsOfCategory(db));
  router.get('/lists/:id', showList(db));
  router.get('/lists/:list_id/campus', campusOfList(db));
  router.get('/lists/:list_id/category', categoryOfList(db));
  router.get('/lists/:list_id/created_by', createdByOfList(db));
  router.get('/lists/:list_id/updated_by', updatedByOfList(db));
  router.get('/lists/:list_id/bulkmail_sync_status', bulkmailSyncStatusOfList(db));
  router.get('/lists/:list_id/star', starOfList(db));
  router.get('/lists/:list_id/list_results', resultsOfList(db));
  router.get('/lists/:list_id/list_results/:id', resultOfList(db));
  router.get('/lists/:list_id/people', peopleOfList(db));
  router.get('/lists/:list_id/rules', rulesOfList(db));
  router.get('/lists/:list_id/rules/:id', ruleOfList(db));
  router.get('/lists/:list_id/shares', sharesOfList(db));
  router.get('/lists/:list_id/shares/:id', shareOfList(db));
  return router;
}

/** A page of the organization's lists as the person sees them, optionally narrowed to one parent. */
async function listPage(
  db: Database,
  req: Request,
  query: CollectionQuery,
  scoping: { condition?: string; value?: string; parent: { id: string; type: string } },
): Promise<CollectionLoad> {
  const scope = scopeOf(req);
  const params = new SqlParams([scope.organizationId, scope.personId]);
  const conditions = scoping.condition ? [`${scoping.condition} = ${params.add(scoping.value)}`] : [];
  const page = await queryCollection(db, listResource, query, {
    select: LIST_SELECT,
    from: LIST_ROWS_SQL,
    conditions,
    params,
    tieBreaker: 'l.id ASC',
    personId: scope.personId,
  });
  return {
    ...page,
    parent: scoping.parent,
    included: await listIncludes(db, scope.organizationId, page.rows, query.include),
  };
}

/** `GET /lists`: the organization's lists. */
function listsOfOrganization(db: Database): RequestHandler {
  return collectionRoute(listResource, (req, query) => listPage(db, req, query, { parent: organizationParent(req) }), {
    related: LIST_RELATED,
  });
}

/** Where a parent's lists are found: its table and columns, the path parameter naming it, the list column. */
interface ListParent {
  table: 'campuses' | 'list_categories';
  select: string;
  param: string;
  column: string;
  type: string;
}

/** `GET /{parents}/{id}/lists`: 404 unless the parent is the organization's. */
function listsOfParent(db: Database, parent: ListParent): RequestHandler {
  return collectionRoute(
    listResource,
    async (req, query) => {
      const organizationId = scopeOf(req).organizationId;
      const row = await loadOwned(db, parent.table, parent.select, organizationId, pathId(req, parent.param));
      if (!row) throw new NotFoundError();
      return listPage(db, req, query, {
        condition: parent.column,
        value: String(row.id),
        parent: { id: String(row.id), type: parent.type },
      });
    },
    { related: LIST_RELATED },
  );
}

/** `GET /campuses/{campus_id}/lists`. */
const listsOfCampus = (db: Database) =>
  listsOfParent(db, {
    table: 'campuses',
    select: CAMPUS_SELECT,
    param: 'campus_id',
    column: 'l.campus_id',
    type: 'Campus',
  });

/** `GET /list_categories/{list_category_id}/lists`. */
const listsOfCategory = (db: Database) =>
  listsOfParent(db, {
    table: 'list_categories',
    select: LIST_CATEGORY_SELECT,
    param: 'list_category_id',
    column: 'l.list_category_id',
    type: 'ListCategory',
  });

/** `GET /lists/{id}`: records the view, then answers the list. */
function showList(db: Database): RequestHandler {
  return singleRoute(
    listResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const id = pathId(req, 'id');
      // Opening a list is what "recently viewed" means; recorded before reading so the answer shows it.
      await db.query(
        `INSERT INTO list_views (list_id, person_id, viewed_at) SELECT l.id, $2, now() FROM lists l WHERE l.organization_id = $1 AND l.id = $3
         ON CONFLICT (list_id, person_id) DO UPDATE SET viewed_at = EXCLUDED.viewed_at`,
        [scope.organizationId, scope.personId, id],
      );
      const row = await loadList(db, scope, id);
      return {
        row,
        parent: organizationParent(req),
        included: row ? await listIncludes(db, scope.organizationId, [row], query.include) : [],
      };
    },
    { related: LIST_RELATED },
  );
}
