/**
 * Note reads: `GET /people/v2/notes`, `/notes/{id}`, the associations `/notes/{note_id}/category|created_by|person`
 * and the belongs-to collection `/people/{person_id}/notes` — one named handler per route, listed in order by
 * `noteReadRoutes`.
 */
import { Router, type RequestHandler } from 'express';
import { organizationResource } from '../../api/organization-resource.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { queryCollection } from '../../jsonapi/collection-sql.ts';
import type { CollectionQuery } from '../../jsonapi/query.ts';
import type { Row } from '../../jsonapi/resource.ts';
import { collectionRoute, pathId, singleRoute } from '../../jsonapi/routes.ts';
import { SqlParams } from '../../jsonapi/sql.ts';
import { NOTE_CATEGORY_SELECT, noteCategoryResource } from './note-category-resource.ts';
import { noteIncludes } from './note-includes.ts';
import { NOTE_SELECT, noteResource } from './note-resource.ts';
import { personResource } from '../person-resource.ts';
import { loadPersonRow, personIncludes } from '../person-sql.ts';
import { organizationParent, scopeOf, type RequestScope } from '../request-scope.ts';

const related = [noteCategoryResource, personResource];

/** One note of the organization, or undefined. */
export async function loadNote(db: Queryable, organizationId: string, id: string): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${NOTE_SELECT} FROM notes n WHERE n.organization_id = $1 AND n.id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

/** The Note read routes, in the order they are matched. */
export function noteReadRoutes(db: Database): Router {
  const router = Router();
  router.get('/notes', notesOfOrganization(db));
  router.get('/people/:person_id/notes', notesOfPerson(db));
  router.get('/notes/:id', showNote(db));
  router.get('/notes/:note_id/category', categoryOfNote(db));
  router.get('/notes/:note_id/created_by', personOfNote(db, 'created_by'));
  router.get('/notes/:note_id/person', personOfNote(db, 'person'));
  return router;
}

/** A page of the organization's notes, optionally of one person. */
async function notePage(db: Database, scope: RequestScope, query: CollectionQuery, personId?: string) {
  const params = new SqlParams(personId === undefined ? [scope.organizationId] : [scope.organizationId, personId]);
  const page = await queryCollection(db, noteResource, query, {
    select: NOTE_SELECT,
    from: 'notes n',
    conditions: personId === undefined ? ['n.organization_id = $1'] : ['n.organization_id = $1', 'n.person_id = $2'],
    params,
    tieBreaker: 'n.id ASC',
    personId: scope.personId,
  });
  return { ...page, included: await noteIncludes(db, scope.organizationId, page.rows, query.include) };
}

/** `GET /notes`: the organization's notes. */
function notesOfOrganization(db: Database): RequestHandler {
  return collectionRoute(
    noteResource,
    async (req, query) => ({ ...(await notePage(db, scopeOf(req), query)), parent: organizationParent(req) }),
    { related },
  );
}

/** `GET /people/{person_id}/notes`: 404 unless the person is the organization's. */
function notesOfPerson(db: Database): RequestHandler {
  return collectionRoute(
    noteResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const person = await loadPersonRow(db, scope.organizationId, pathId(req, 'person_id'));
      if (!person) throw new NotFoundError();
      const page = await notePage(db, scope, query, String(person.id));
      return { ...page, parent: { id: String(person.id), type: 'Person' } };
    },
    { related },
  );
}

/** `GET /notes/{id}`. */
function showNote(db: Database): RequestHandler {
  return singleRoute(
    noteResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const row = await loadNote(db, scope.organizationId, pathId(req, 'id'));
      return {
        row,
        parent: organizationParent(req),
        included: row ? await noteIncludes(db, scope.organizationId, [row], query.include) : [],
      };
    },
    { related },
  );
}

/** `GET /notes/{note_id}/category`. */
function categoryOfNote(db: Database): RequestHandler {
  return singleRoute(noteCategoryResource, async (req) => {
    const scope = scopeOf(req);
    const note = await loadNote(db, scope.organizationId, pathId(req, 'note_id'));
    const row = note?.note_category_id
      ? (
          await db.query<Row>(
            `SELECT ${NOTE_CATEGORY_SELECT} FROM note_categories c WHERE c.organization_id = $1 AND c.id = $2`,
            [scope.organizationId, note.note_category_id],
          )
        ).rows[0]
      : undefined;
    return { row, parent: { id: note ? String(note.id) : '', type: 'Note' } };
  });
}

/** `GET /notes/{note_id}/created_by` and `/notes/{note_id}/person`. */
function personOfNote(db: Database, association: 'created_by' | 'person'): RequestHandler {
  return singleRoute(
    personResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const note = await loadNote(db, scope.organizationId, pathId(req, 'note_id'));
      const row = await loadPersonRow(
        db,
        scope.organizationId,
        note?.[`${association === 'person' ? 'person' : 'created_by'}_id`] as string | null | undefined,
      );
      return {
        row,
        parent: { id: note ? String(note.id) : '', type: 'Note' },
        included: personIncludes(row, query.include),
      };
    },
    { related: [organizationResource] },
  );
}
