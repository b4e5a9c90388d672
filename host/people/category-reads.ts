/** The single routes the self links of Campus, ListCategory and NoteCategory point at. */
import { Router } from 'express';
import type { Database } from '../db/database.ts';
import type { ResourceDefinition, Row } from '../jsonapi/resource.ts';
import { pathId, singleRoute } from '../jsonapi/routes.ts';
import { CAMPUS_SELECT, campusResource } from './campus-resource.ts';
import { LIST_CATEGORY_SELECT, listCategoryResource } from './list-category-resource.ts';
import { NOTE_CATEGORY_SELECT, noteCategoryResource } from './notes/index.ts';
import { organizationParent, scopeOf } from './request-scope.ts';

const ROUTES: [string, string, string, ResourceDefinition][] = [
  ['/campuses/:id', 'campuses', CAMPUS_SELECT, campusResource],
  ['/list_categories/:id', 'list_categories', LIST_CATEGORY_SELECT, listCategoryResource],
  ['/note_categories/:id', 'note_categories', NOTE_CATEGORY_SELECT, noteCategoryResource],
];

/** `GET /campuses/{id}`, `/list_categories/{id}`, `/note_categories/{id}`. */
export function categoryReadRoutes(db: Database): Router {
  const router = Router();
  for (const [path, table, select, definition] of ROUTES) {
    router.get(
      path,
      singleRoute(definition, async (req) => {
        const { rows } = await db.query<Row>(
          `SELECT ${select} FROM ${table} c WHERE c.organization_id = $1 AND c.id = $2`,
          [scopeOf(req).organizationId, pathId(req, 'id')],
        );
        return { row: rows[0], parent: organizationParent(req) };
      }),
    );
  }
  return router;
}
