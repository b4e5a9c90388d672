/**
 * Records an event in the outbox, inside the caller's transaction: one row per active subscription of the
 * organization to the event's name, so a committed change always has its events and a rolled-back one has none.
 * Delivery is never inline: the worker is woken by a NOTIFY that PostgreSQL sends only at commit. The SQL is the
 * tables' owners' (subscription-store.ts finds the subscribers, event-store.ts inserts the events).
 */
import type { Queryable } from '../db/database.ts';
import type { EventName } from './event-names.ts';
import { insertEvents } from './event-store.ts';
import { activeSubscriberIds } from './subscription-store.ts';

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
  // Nobody subscribed (the common case): one statement, nothing written.
  const subscriptionIds = await activeSubscriberIds(tx, event.organizationId, event.name);
  if (subscriptionIds.length === 0) return 0;
  const recorded = await insertEvents(tx, {
    organizationId: event.organizationId,
    subscriptionIds,
    name: event.name,
    payload: JSON.stringify(event.payload),
  });
  await notifyWorkers(tx, event.name);
  return recorded.length;
}

/** Wakes the delivery workers of every process once the caller's transaction commits. */
export async function notifyWorkers(tx: Queryable, name: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_EVENTS_CHANNEL, name]);
}
