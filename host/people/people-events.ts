/**
 * The webhook events of People writes (a Note's in notes/note-events.ts) (host/webhooks), recorded with the write's own transaction so a committed
 * change always has its events and a rolled-back one none. The payload is the resource as `GET` renders it. A List
 * is rendered as seen by no one in particular: `starred` and `recently_viewed` are the requester's own and are
 * false in events.
 */
import type { Queryable } from '../db/database.ts';
import { recordEvent, renderPayload } from '../webhooks/index.ts';
import { loadList } from './list-rows.ts';
import { listResource } from './list-resource.ts';

/** The person id no one has: per-person List attributes render as for nobody. */
const NO_ONE = '0';

/** What every People event needs: the write's transaction, the organization and the host's base URL. */
export interface PeopleEventContext {
  tx: Queryable;
  organizationId: string;
  baseUrl: string;
}

/** Records `people.v2.events.list.{action}` with the list as it is now in the transaction. */
export async function recordListEvent(
  ctx: PeopleEventContext,
  action: 'updated' | 'run',
  listId: string,
): Promise<void> {
  const list = await loadList(ctx.tx, { organizationId: ctx.organizationId, personId: NO_ONE }, listId);
  if (!list) return;
  const parent = { id: ctx.organizationId, type: 'Organization' };
  await recordEvent(ctx.tx, {
    organizationId: ctx.organizationId,
    name: `people.v2.events.list.${action}`,
    payload: renderPayload(listResource, list, parent, ctx.baseUrl),
  });
}
