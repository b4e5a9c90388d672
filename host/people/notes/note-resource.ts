/** The Note resource (type Note): text with a category on a person's profile. */
import type { PayloadShape } from '../../jsonapi/payload.ts';
import type { ResourceDefinition } from '../../jsonapi/resource.ts';
import { isoTimestampSql } from '../../jsonapi/sql.ts';

const noteLink = (base: string, id: unknown) => `${base}/people/v2/notes/${String(id)}`;

/** Definition of Note, exactly the spec's attributes, relationships, includes, order values and where[]. */
export const noteResource: ResourceDefinition = {
  type: 'Note',
  attributes: {
    created_at: { type: 'date_time' },
    created_by_id: { type: 'primary_key' },
    display_date: { type: 'date_time' },
    note: { type: 'string' },
    note_category_id: { type: 'primary_key', nullable: true },
    organization_id: { type: 'primary_key' },
    person_id: { type: 'primary_key' },
    updated_at: { type: 'date_time' },
  },
  fields: [
    'created_at',
    'created_by_id',
    'display_date',
    'note',
    'note_category_id',
    'organization_id',
    'person_id',
    'updated_at',
    'note_category',
    'organization',
    'person',
    'created_by',
  ],
  relationships: {
    note_category: {
      type: 'NoteCategory',
      id: (row) => row.note_category_id as string | null,
      related: (row, base) => `${noteLink(base, row.id)}/category`,
    },
    organization: { type: 'Organization', id: (row) => row.organization_id as string },
    person: {
      type: 'Person',
      id: (row) => row.person_id as string,
      related: (row, base) => `${noteLink(base, row.id)}/person`,
    },
    created_by: {
      type: 'Person',
      id: (row) => row.created_by_id as string | null,
      related: (row, base) => `${noteLink(base, row.id)}/created_by`,
    },
  },
  links: (row, base) => ({ self: noteLink(base, row.id) }),
  includes: ['category', 'created_by', 'person'],
  order: {
    created_at: 'n.created_at',
    display_date: 'n.display_date',
    id: 'n.id',
    note: 'n.note',
    note_category_id: 'n.note_category_id',
    updated_at: 'n.updated_at',
  },
  where: {
    created_at: { type: 'date_time', column: 'n.created_at' },
    note: { type: 'string', column: 'n.note' },
    note_category_id: { type: 'primary_key', column: 'n.note_category_id' },
    updated_at: { type: 'date_time', column: 'n.updated_at' },
  },
};

/** Columns of a Note row (alias `n`). */
export const NOTE_SELECT =
  'n.id::text AS id, n.organization_id::text AS organization_id, n.person_id::text AS person_id, n.created_by_id::text AS created_by_id, ' +
  `n.note_category_id::text AS note_category_id, n.note, ${isoTimestampSql('n.display_date')} AS display_date, ` +
  `${isoTimestampSql('n.created_at')} AS created_at, ${isoTimestampSql('n.updated_at')} AS updated_at`;

/** What a Note create or update may carry. */
export const notePayload: PayloadShape = {
  type: 'Note',
  assignable: {
    note: { type: 'string' },
    created_at: { type: 'date_time' },
    updated_at: { type: 'date_time' },
    display_date: { type: 'date_time' },
    note_category_id: { type: 'primary_key', nullable: true },
  },
  readOnly: ['id', 'created_by_id', 'organization_id', 'person_id', 'note_category', 'organization'],
  relationships: {
    created_by: { type: 'Person', attribute: 'created_by_id' },
    person: { type: 'Person', attribute: 'person_id' },
  },
};
