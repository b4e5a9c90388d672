/**
 * Records a change in the outbox, inside the caller's transaction: one webhook_changes row when at least one active
 * subscription of the organization wants the event's name, so a committed change always has its events and a
 * rolled-back one has none. The delivery worker fans it out into one event per subscription (event-store/changes.ts):
 * the write pays one row however many subscribe. Delivery is never inline: the worker is woken by a NOTIFY that
 * PostgreSQL sends only at commit. One statement, with or without subscribers.
 */
import type { Queryable } from '../db/database.ts';
import type { EventName } from './event-names.ts';
import { insertChange } from './event-store/index.ts';

/** The channel the delivery worker listens on (NOTIFY is delivered at commit, never for a rolled-back write). */
export const WEBHOOK_EVENTS_CHANNEL = 'webhook_events';

/** One change to announce. */
export interface RecordedEvent {
  organizationId: string;
  name: EventName;
  /** The resource as the API renders it (a JSON:API document). */
  payload: unknown;
}

/** Records the change for its subscribers; returns whether anyone subscribes (false: nothing was recorded). */
export async function recordEvent(tx: Queryable, event: RecordedEvent): Promise<boolean> {
  return insertChange(
    tx,
    { organizationId: event.organizationId, name: event.name, payload: JSON.stringify(event.payload) },
    WEBHOOK_EVENTS_CHANNEL,
  );
}

/** Wakes the delivery workers of every process once the caller's transaction commits. */
export async function notifyWorkers(tx: Queryable, name: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_EVENTS_CHANNEL, name]);
}
