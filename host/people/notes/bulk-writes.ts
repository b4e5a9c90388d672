/** Writes of note categories and Notes in bulk, for loading data (the demo seed). */
import type { Queryable } from '../../db/database.ts';

/** The organization's note categories with these names, created when missing. */
export async function ensureNoteCategories(
  db: Queryable,
  organizationId: string,
  names: readonly string[],
): Promise<void> {
  await db.query(
    'INSERT INTO note_categories (organization_id, name) SELECT $1, n FROM unnest($2::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i ON CONFLICT DO NOTHING',
    [organizationId, names],
  );
}

/** The ids of the organization's note categories, ascending. */
export async function noteCategoryIdsOf(db: Queryable, organizationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM note_categories WHERE organization_id = $1 ORDER BY note_categories.id',
    [organizationId],
  );
  return rows.map((r) => r.id);
}

/** Notes to add, one array per column (index i of each is note i); the time is the display, created and updated time. */
export interface NoteColumns {
  personId: string[];
  noteCategoryId: string[];
  note: string[];
  at: string[];
}

/** Adds the Notes, written by `authorId`, in one statement. */
export async function addNotes(
  db: Queryable,
  organizationId: string,
  authorId: string | null,
  notes: NoteColumns,
): Promise<void> {
  await db.query(
    `INSERT INTO notes (organization_id, person_id, created_by_id, note_category_id, note, display_date, created_at, updated_at)
     SELECT $1, p::bigint, $2, c::bigint, n, t::timestamptz, t::timestamptz, t::timestamptz
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(p, c, n, t)`,
    [organizationId, authorId, notes.personId, notes.noteCategoryId, notes.note, notes.at],
  );
}
