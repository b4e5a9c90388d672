/**
 * Notes and their categories: the one owner of `notes` and `note_categories`. The people router mounts the routes;
 * the Person and List code read categories and the rule "has a note in category" through this door.
 */
export { noteReadRoutes } from './note-reads.ts';
export { noteWriteRoutes } from './note-writes.ts';
export { NOTE_CATEGORY_SELECT, noteCategoryResource } from './note-category-resource.ts';
export { hasNoteInCategory } from './note-sql.ts';
export { addNotes, ensureNoteCategories, noteCategoryIdsOf, type NoteColumns } from './bulk-writes.ts';
