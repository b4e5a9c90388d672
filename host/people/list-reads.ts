/**
 * List reads: the Organization collection `GET /people/v2/lists` (with named filters through `filter=`),
 * the belongs-to collections under campuses and list categories, `GET /lists/{id}` (which records the
 * view for recently_viewed) and every association under `/lists/{list_id}/`.
 */
import { Router, type Request } from 'express';
import { organizationResource } from '../api/organization-resource.ts';
import type { Database, Queryable } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { queryCollection } from '../jsonapi/collection-sql.ts';
import type { CollectionQuery } from '../jsonapi/query.ts';
import type { ResourceDefinition, Row } from '../jsonapi/resource.ts';
import { collectionRoute, pathId, singleRoute, type CollectionLoad } from '../jsonapi/routes.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { BULKMAIL_SYNC_STATUS_SELECT, bulkmailSyncStatusResource } from './bulkmail-sync-status-resource.ts';
import { CAMPUS_SELECT, campusResource } from './campus-resource.ts';
import { LIST_CATEGORY_SELECT, listCategoryResource } from './list-category-resource.ts';
import { LIST_RELATED, listIncludes } from './list-includes.ts';
import { LIST_ROWS_SQL, LIST_SELECT, listResource } from './list-resource.ts';
import { LIST_RESULT_SELECT, listResultResource } from './list-result-resource.ts';
import { LIST_SHARE_SELECT, listShareResource } from './list-share-resource.ts';
import { LIST_STAR_SELECT, listStarResource } from './list-star-resource.ts';
import { personResource } from './person-resource.ts';
import { PERSON_SELECT, loadPersonRow, personIncludes } from './person-sql.ts';
import { organizationParent, scopeOf, type RequestScope } from './request-scope.ts';
import { RULE_SELECT, ruleResource } from './rule-resource.ts';

/** One list of the organization as the person sees it, or undefined. */
export async function loadList(db: Queryable, scope: RequestScope, id: string): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${LIST_SELECT} FROM ${LIST_ROWS_SQL} WHERE l.id = $3`, [
    scope.organizationId,
    scope.personId,
    id,
  ]);
  return rows[0];
}

/** A record of the organization's `table` by id (for belongs-to parents and to_one associations). */
async function loadOwned(
  db: Queryable,
  table: 'campuses' | 'list_categories',
  select: string,
  organizationId: string,
  id: number | string | null,
): Promise<Row | undefined> {
  if (id === null || id === undefined) return undefined;
  return (
    await db.query<Row>(`SELECT ${select} FROM ${table} c WHERE c.organization_id = $1 AND c.id = $2`, [
      organizationId,
      String(id),
    ])
  ).rows[0];
}

/** The List read routes (collections, single list, associations). */
export function listReadRoutes(db: Database): Router {
  const router = Router();

  const listCollection = async (
    req: Request,
    query: CollectionQuery,
    scoping: { condition?: string; value?: string; parent: { id: string; type: string } },
  ): Promise<CollectionLoad> => {
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
  };

  router.get(
    '/lists',
    collectionRoute(listResource, (req, query) => listCollection(req, query, { parent: organizationParent(req) }), {
      related: LIST_RELATED,
    }),
  );

  router.get(
    '/campuses/:campus_id/lists',
    collectionRoute(
      listResource,
      async (req, query) => {
        const campus = await loadOwned(
          db,
          'campuses',
          CAMPUS_SELECT,
          scopeOf(req).organizationId,
          pathId(req, 'campus_id'),
        );
        if (!campus) throw new NotFoundError();
        return listCollection(req, query, {
          condition: 'l.campus_id',
          value: String(campus.id),
          parent: { id: String(campus.id), type: 'Campus' },
        });
      },
      { related: LIST_RELATED },
    ),
  );

  router.get(
    '/list_categories/:list_category_id/lists',
    collectionRoute(
      listResource,
      async (req, query) => {
        const category = await loadOwned(
          db,
          'list_categories',
          LIST_CATEGORY_SELECT,
          scopeOf(req).organizationId,
          pathId(req, 'list_category_id'),
        );
        if (!category) throw new NotFoundError();
        return listCollection(req, query, {
          condition: 'l.list_category_id',
          value: String(category.id),
          parent: { id: String(category.id), type: 'ListCategory' },
        });
      },
      { related: LIST_RELATED },
    ),
  );

  router.get(
    '/lists/:id',
    singleRoute(
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
    ),
  );

  /** A to_one association of a list: loads the list (404 when not in the organization), then the related row. */
  const toOne = (
    name: string,
    definition: ResourceDefinition,
    load: (list: Row, scope: RequestScope) => Promise<Row | undefined>,
    related: readonly ResourceDefinition[] = [],
  ) =>
    router.get(
      `/lists/:list_id/${name}`,
      singleRoute(
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
      ),
    );

  toOne('campus', campusResource, (list, scope) =>
    loadOwned(db, 'campuses', CAMPUS_SELECT, scope.organizationId, list.campus_id as number | null),
  );
  toOne('category', listCategoryResource, (list, scope) =>
    loadOwned(
      db,
      'list_categories',
      LIST_CATEGORY_SELECT,
      scope.organizationId,
      list.list_category_id as number | null,
    ),
  );
  toOne(
    'created_by',
    personResource,
    (list, scope) => loadPersonRow(db, scope.organizationId, list.created_by_id as string | null),
    [organizationResource],
  );
  toOne(
    'updated_by',
    personResource,
    (list, scope) => loadPersonRow(db, scope.organizationId, list.updated_by_id as string | null),
    [organizationResource],
  );
  toOne(
    'bulkmail_sync_status',
    bulkmailSyncStatusResource,
    async (list) =>
      (
        await db.query<Row>(
          `SELECT ${BULKMAIL_SYNC_STATUS_SELECT} FROM bulkmail_sync_statuses b WHERE b.list_id = $1`,
          [list.id],
        )
      ).rows[0],
  );
  toOne(
    'star',
    listStarResource,
    async (list, scope) =>
      (
        await db.query<Row>(`SELECT ${LIST_STAR_SELECT} FROM list_stars s WHERE s.list_id = $1 AND s.person_id = $2`, [
          list.id,
          scope.personId,
        ])
      ).rows[0],
  );

  /** A collection association of a list, and the single route its items' self links point at. */
  const toMany = (
    name: string,
    definition: ResourceDefinition,
    sql: { select: string; from: string; listColumn: string; idColumn: string; tieBreaker: string },
    related: readonly ResourceDefinition[] = [],
  ) => {
    router.get(
      `/lists/:list_id/${name}`,
      collectionRoute(
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
      ),
    );
    if (definition === personResource) return;
    router.get(
      `/lists/:list_id/${name}/:id`,
      singleRoute(definition, async (req) => {
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
      }),
    );
  };

  toMany('list_results', listResultResource, {
    select: LIST_RESULT_SELECT,
    from: 'list_results r',
    listColumn: 'r.list_id',
    idColumn: 'r.id',
    tieBreaker: 'r.id ASC',
  });
  toMany(
    'people',
    personResource,
    {
      select: PERSON_SELECT,
      from: 'list_results r JOIN people p ON p.id = r.person_id',
      listColumn: 'r.list_id',
      idColumn: 'p.id',
      tieBreaker: 'p.id ASC',
    },
    [organizationResource],
  );
  toMany('rules', ruleResource, {
    select: RULE_SELECT,
    from: 'list_rules r',
    listColumn: 'r.list_id',
    idColumn: 'r.id',
    tieBreaker: 'r.id ASC',
  });
  toMany('shares', listShareResource, {
    select: LIST_SHARE_SELECT,
    from: 'list_shares s',
    listColumn: 's.list_id',
    idColumn: 's.id',
    tieBreaker: 's.id ASC',
  });
  return router;
}
