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

/** `GET /campuses/{campus_id}/lists`: 404 unless the campus is the organization's. */
function listsOfCampus(db: Database): RequestHandler {
  return collectionRoute(
    listResource,
    async (req, query) => {
      const organizationId = scopeOf(req).organizationId;
      const campus = await loadOwned(db, 'campuses', CAMPUS_SELECT, organizationId, pathId(req, 'campus_id'));
      if (!campus) throw new NotFoundError();
      return listPage(db, req, query, {
        condition: 'l.campus_id',
        value: String(campus.id),
        parent: { id: String(campus.id), type: 'Campus' },
      });
    },
    { related: LIST_RELATED },
  );
}

/** `GET /list_categories/{list_category_id}/lists`: 404 unless the category is the organization's. */
function listsOfCategory(db: Database): RequestHandler {
  return collectionRoute(
    listResource,
    async (req, query) => {
      const organizationId = scopeOf(req).organizationId;
      const id = pathId(req, 'list_category_id');
      const category = await loadOwned(db, 'list_categories', LIST_CATEGORY_SELECT, organizationId, id);
      if (!category) throw new NotFoundError();
      return listPage(db, req, query, {
        condition: 'l.list_category_id',
        value: String(category.id),
        parent: { id: String(category.id), type: 'ListCategory' },
      });
    },
    { related: LIST_RELATED },
  );
}

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
