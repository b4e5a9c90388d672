/** The webhook events of Note writes, recorded in the write's transaction (see ../people-events.ts). */
import type { Row } from '../../jsonapi/resource.ts';
import { recordEvent, renderPayload } from '../../webhooks/index.ts';
import type { PeopleEventContext } from '../people-events.ts';
import { noteResource } from './note-resource.ts';

/** Records `people.v2.events.note.{action}` with the note as rendered (for destroyed: as it was). */
export async function recordNoteEvent(
  ctx: PeopleEventContext,
  action: 'created' | 'updated' | 'destroyed',
  note: Row,
): Promise<void> {
  const parent = { id: ctx.organizationId, type: 'Organization' };
  await recordEvent(ctx.tx, {
    organizationId: ctx.organizationId,
    name: `people.v2.events.note.${action}`,
    payload: renderPayload(noteResource, note, parent, ctx.baseUrl),
  });
}
