/**
 * What a person does to an event: ignore it (a failed, skipped or duplicated event is marked ignored_…; a pending
 * one stops being retried and becomes ignored_failed) and redeliver it (one more attempt, now). The rules and their
 * 422s are here; the SQL is event-store/'s.
 */
import type { Queryable } from '../db/database.ts';
import { ValidationError } from '../errors.ts';
import { makeEventDue, markEventIgnored } from './event-store/index.ts';

/** Marks the event ignored; 422 for a delivered or already ignored event. */
export async function ignoreEvent(db: Queryable, eventId: string): Promise<void> {
  if (!(await markEventIgnored(db, eventId)))
    throw new ValidationError('Event', [
      { parameter: 'status', detail: 'only a pending, failed, skipped or duplicated event can be ignored' },
    ]);
}

/**
 * Makes the event due now for one more attempt (its attempt number counts on). 422 while the subscription is
 * inactive (activate it first) or while an attempt is in flight.
 */
export async function redeliverEvent(
  db: Queryable,
  input: { event: string; subscriptionActive: boolean },
): Promise<void> {
  if (!input.subscriptionActive)
    throw new ValidationError('Event', [
      { parameter: 'subscription', detail: 'the subscription is inactive; activate it before redelivering' },
    ]);
  if (!(await makeEventDue(db, input.event)))
    throw new ValidationError('Event', [{ parameter: 'status', detail: 'an attempt of this event is in flight' }]);
}
