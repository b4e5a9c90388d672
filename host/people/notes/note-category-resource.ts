/** The NoteCategory resource: a named category of notes in an organization. */
import type { ResourceDefinition } from '../../jsonapi/resource.ts';

/** Definition of NoteCategory. */
export const noteCategoryResource: ResourceDefinition = {
  type: 'NoteCategory',
  attributes: { name: { type: 'string' }, created_at: { type: 'date_time' }, updated_at: { type: 'date_time' } },
  fields: ['name', 'created_at', 'updated_at'],
  links: (row, base) => ({ self: `${base}/people/v2/note_categories/${String(row.id)}` }),
};

/** Columns of a NoteCategory row (alias `c`). */
export const NOTE_CATEGORY_SELECT = 'c.id::text AS id, c.name, c.created_at, c.updated_at';
