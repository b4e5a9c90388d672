/**
 * Records an event in the outbox, inside the caller's transaction: one row per active subscription of the
 * organization to the event's name, so a committed change always has its events and a rolled-back one has none.
 * Delivery is never inline: the worker is woken by a NOTIFY that PostgreSQL sends only at commit.
 */
import type { Queryable } from '../db/database.ts';
import type { EventName } from './event-names.ts';

/** The channel the delivery worker listens on (NOTIFY is delivered at commit, never for a rolled-back write). */
export const WEBHOOK_EVENTS_CHANNEL = 'webhook_events';

/** One change to announce. */
export interface RecordedEvent {
  organizationId: string;
  name: EventName;
  /** The resource as the API renders it (a JSON:API document). */
  payload: unknown;
}

/** Inserts the event for every matching subscription; returns how many were recorded. */
export async function recordEvent(tx: Queryable, event: RecordedEvent): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH recorded AS (
       INSERT INTO webhook_events (organization_id, subscription_id, name, payload)
       SELECT organization_id, id, name, $3 FROM webhook_subscriptions
       WHERE organization_id = $1 AND name = $2 AND active
       RETURNING 1)
     SELECT count(*)::int AS n FROM recorded`,
    [event.organizationId, event.name, JSON.stringify(event.payload)],
  );
  const recorded = rows[0]!.n;
  if (recorded > 0) await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_EVENTS_CHANNEL, event.name]);
  return recorded;
}
