/**
 * Note writes: `POST /people/v2/people/{person_id}/notes` (201 + Location), `PATCH /people/v2/notes/{id}`
 * (200), `DELETE /people/v2/notes/{id}` (204). The spec makes `created_by` and `person` assignable on
 * create and update: on create `person` may only repeat the path's person; `created_by` defaults to the
 * requester and only people managers may name someone else (or, on update, change it); `person` on update
 * moves the note. display_date defaults to created_at. One named handler per route, listed in order by
 * `noteWriteRoutes`.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type { Database } from '../../db/database.ts';
import { ForbiddenAttributeError, NotFoundError, ValidationError } from '../../errors.ts';
import { parseResourcePayload, type PayloadValue } from '../../jsonapi/payload.ts';
import type { Row } from '../../jsonapi/resource.ts';
import { baseUrlOf, pathId, singleRoute } from '../../jsonapi/routes.ts';
import { noteCategoryResource } from './note-category-resource.ts';
import { noteIncludes } from './note-includes.ts';
import { loadNote } from './note-reads.ts';
import { NOTE_SELECT, notePayload, noteResource } from './note-resource.ts';
import { requireOrganizationRecord } from '../org-records.ts';
import { recordNoteEvent } from './note-events.ts';
import { personResource } from '../person-resource.ts';
import { loadPersonRow } from '../person-sql.ts';
import { organizationParent, scopeOf, type RequestScope } from '../request-scope.ts';

const related = [noteCategoryResource, personResource];

/** 422 Validation Error unless the note text has something besides spaces. */
function requireNoteText(value: PayloadValue | undefined): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError('Note', [{ parameter: 'note', detail: "note can't be blank" }]);
  }
}

/** 422 Validation Error unless a create's `person` relationship names the path's person (it cannot move). */
function requirePathPerson(values: Record<string, PayloadValue>, pathPersonId: string): void {
  if ('person_id' in values && values.person_id !== pathPersonId) {
    const detail = `person must be the person of the path (${pathPersonId}); to move a note, PATCH /people/v2/notes/{id}`;
    throw new ValidationError('Note', [{ parameter: 'person', detail }]);
  }
}

/**
 * 422 Forbidden Attribute when someone who is not a people manager sets `created_by` to anything but what
 * it is anyway (on create the requester, on update the note's author): a note's author is attribution,
 * so editors cannot put words in someone else's name; managers can (imports from other systems).
 */
function requireAuthorChangeAllowed(
  scope: RequestScope,
  values: Record<string, PayloadValue>,
  current: string | null,
  detail: string,
): void {
  if ('created_by_id' in values && values.created_by_id !== current && !scope.isManager) {
    throw new ForbiddenAttributeError('created_by', detail);
  }
}

/** Checks every id the payload assigns against the organization. */
async function checkReferences(
  db: Database,
  organizationId: string,
  values: Record<string, PayloadValue>,
): Promise<void> {
  if (typeof values.note_category_id === 'string')
    await requireOrganizationRecord(db, 'note_categories', organizationId, values.note_category_id, 'note_category_id');
  if (typeof values.created_by_id === 'string')
    await requireOrganizationRecord(db, 'people', organizationId, values.created_by_id, 'created_by');
  if (typeof values.person_id === 'string')
    await requireOrganizationRecord(db, 'people', organizationId, values.person_id, 'person');
}

/** The Note write routes (create, update, delete), in the order they are matched. */
export function noteWriteRoutes(db: Database): Router {
  const router = Router();
  router.post('/people/:person_id/notes', createNote(db));
  router.patch('/notes/:id', updateNote(db));
  router.delete('/notes/:id', deleteNote(db));
  return router;
}

/** The note as answered after a write, with what the query includes. */
async function answerNote(db: Database, req: Request, scope: RequestScope, id: string, include: string[]) {
  const row = await loadNote(db, scope.organizationId, id);
  return {
    row,
    parent: organizationParent(req),
    included: await noteIncludes(db, scope.organizationId, row ? [row] : [], include),
  };
}

/** `POST /people/{person_id}/notes`: 201 with the note and its Location. */
function createNote(db: Database): RequestHandler {
  return singleRoute(
    noteResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const person = await loadPersonRow(db, scope.organizationId, pathId(req, 'person_id'));
      if (!person) throw new NotFoundError();
      const values = parseResourcePayload(req.body, notePayload);
      requirePathPerson(values, String(person.id));
      const onlySelf = 'created_by can name only the requester unless the requester is a people manager';
      requireAuthorChangeAllowed(scope, values, scope.personId, onlySelf);
      requireNoteText(values.note);
      await checkReferences(db, scope.organizationId, values);
      // The note and its webhook events commit together or not at all.
      const id = await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO notes (organization_id, person_id, created_by_id, note_category_id, note, created_at, updated_at, display_date)
         VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now()), COALESCE($7::timestamptz, $6::timestamptz, now()), COALESCE($8::timestamptz, $6::timestamptz, now()))
         RETURNING id::text`,
          [
            scope.organizationId,
            person.id,
            values.created_by_id ?? scope.personId,
            values.note_category_id ?? null,
            values.note,
            values.created_at ?? null,
            values.updated_at ?? null,
            values.display_date ?? null,
          ],
        );
        const note = (await loadNote(tx, scope.organizationId, rows[0]!.id))!;
        await recordNoteEvent({ tx, organizationId: scope.organizationId, baseUrl: baseUrlOf(req) }, 'created', note);
        return rows[0]!.id;
      });
      return answerNote(db, req, scope, id, query.include);
    },
    { related, status: 201, location: true, payload: notePayload },
  );
}

const UPDATABLE = ['note', 'created_at', 'display_date', 'note_category_id', 'created_by_id', 'person_id'] as const;

/** `PATCH /notes/{id}`: the attributes given; `updated_at` now unless given. */
function updateNote(db: Database): RequestHandler {
  return singleRoute(
    noteResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const note = await loadNote(db, scope.organizationId, pathId(req, 'id'));
      if (!note) throw new NotFoundError();
      const values = parseResourcePayload(req.body, notePayload);
      const createdById = note.created_by_id as number | null;
      const author = createdById == null ? null : String(createdById);
      requireAuthorChangeAllowed(scope, values, author, 'created_by can be changed only by a people manager');
      if ('note' in values) requireNoteText(values.note);
      await checkReferences(db, scope.organizationId, values);
      const params: unknown[] = [scope.organizationId, note.id];
      const sets = UPDATABLE.filter((c) => c in values).map((c) => {
        params.push(values[c]);
        return `${c} = $${params.length}`;
      });
      params.push(values.updated_at ?? null);
      sets.push(`updated_at = COALESCE($${params.length}::timestamptz, now())`);
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE notes SET ${sets.join(', ')} WHERE organization_id = $1 AND id = $2`, params);
        const updated = (await loadNote(tx, scope.organizationId, String(note.id)))!;
        await recordNoteEvent(
          { tx, organizationId: scope.organizationId, baseUrl: baseUrlOf(req) },
          'updated',
          updated,
        );
      });
      return answerNote(db, req, scope, String(note.id), query.include);
    },
    { related, payload: notePayload },
  );
}

/** `DELETE /notes/{id}`: 204, or 404 when it is not the organization's. */
function deleteNote(db: Database): RequestHandler {
  return async (req, res) => {
    const scope = scopeOf(req);
    const id = pathId(req, 'id');
    await db.transaction(async (tx) => {
      // The event carries the note as the delete removed it.
      const { rows } = await tx.query<Row>(
        `DELETE FROM notes n WHERE n.organization_id = $1 AND n.id = $2 RETURNING ${NOTE_SELECT}`,
        [scope.organizationId, id],
      );
      const note = rows[0];
      if (!note) throw new NotFoundError();
      await recordNoteEvent({ tx, organizationId: scope.organizationId, baseUrl: baseUrlOf(req) }, 'destroyed', note);
    });
    res.status(204).end();
  };
}
