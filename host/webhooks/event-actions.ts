/**
 * What a person does to an event: ignore it (a failed, skipped or duplicated event is marked ignored_…; a pending
 * one stops being retried and becomes ignored_failed) and redeliver it (one more attempt, now).
 */
import type { Queryable } from '../db/database.ts';
import { ValidationError } from '../errors.ts';

/** Marks the event ignored; 422 for a delivered or already ignored event. */
export async function ignoreEvent(db: Queryable, eventId: string): Promise<void> {
  const { rowCount } = await db.query(
    `UPDATE webhook_events
     SET status = CASE status WHEN 'skipped' THEN 'ignored_skipped' WHEN 'duplicated' THEN 'ignored_duplicated'
                  ELSE 'ignored_failed' END,
         lease_until = NULL, updated_at = now()
     WHERE id = $1 AND status IN ('pending', 'failed', 'skipped', 'duplicated')`,
    [eventId],
  );
  if (rowCount === 0)
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
  const { rowCount } = await db.query(
    `UPDATE webhook_events SET status = 'pending', next_attempt_at = now(), updated_at = now()
     WHERE id = $1 AND (lease_until IS NULL OR lease_until <= now())`,
    [input.event],
  );
  if (rowCount === 0)
    throw new ValidationError('Event', [{ parameter: 'status', detail: 'an attempt of this event is in flight' }]);
}
