/**
 * The writes of webhook_events (the outbox) outside the worker's attempts: a test event's and a lifecycle event's
 * rows, retention, ignore and redeliver. A change's events: changes.ts (fanned out by the worker). Claiming due events:
 * claims.ts; finishing attempts (and claiming the next): finish-attempts.ts. The reads of the API and the pages:
 * reads.ts. Subscriptions: ../subscription-store.ts.
 */
import type { Queryable } from '../../db/database.ts';

/** The events of one change, one per subscriber, in the caller's transaction. */
export interface NewEvents {
  organizationId: string;
  subscriptionIds: readonly string[];
  name: string;
  /** The payload as delivered (a JSON string). */
  payload: string;
}

/** Inserts one pending event per subscriber; returns their ids and uuids. */
export async function insertEvents(tx: Queryable, events: NewEvents): Promise<{ id: string; uuid: string }[]> {
  if (events.subscriptionIds.length === 0) return [];
  const { rows } = await tx.query<{ id: string; uuid: string }>(
    `INSERT INTO webhook_events (organization_id, subscription_id, name, payload)
     SELECT $1::bigint, s, $3::text, $4::text FROM unnest($2::bigint[]) s
     RETURNING id::text, uuid::text`,
    [events.organizationId, events.subscriptionIds, events.name, events.payload],
  );
  return rows;
}

/**
 * One add-on lifecycle event (host/addons/lifecycle, through record-lifecycle-event.ts), in the caller's transaction:
 * no subscription; its own target URL and sealed signing secret (migration 210).
 */
export interface NewLifecycleEvent {
  organizationId: string;
  name: string;
  payload: string;
  targetUrl: string;
  /** Sealed with the host's secret box. */
  sealedSecret: string;
}

/** Inserts a pending lifecycle event; returns its id and uuid. */
export async function insertLifecycleEvent(
  tx: Queryable,
  event: NewLifecycleEvent,
): Promise<{ id: string; uuid: string }> {
  const { rows } = await tx.query<{ id: string; uuid: string }>(
    `INSERT INTO webhook_events (organization_id, subscription_id, name, payload, target_url, signing_secret)
     VALUES ($1, NULL, $2, $3, $4, $5) RETURNING id::text, uuid::text`,
    [event.organizationId, event.name, event.payload, event.targetUrl, event.sealedSecret],
  );
  return rows[0]!;
}

/** Deletes finished events (and their deliveries) last changed more than `days` ago; returns how many. */
export async function deleteFinishedEvents(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_events WHERE status <> 'pending' AND updated_at < now() - $1 * interval '1 day'`,
    [days],
  );
  return rowCount;
}

/** Marks the event ignored (a pending one stops being retried); false for a delivered or already ignored event. */
export async function markEventIgnored(db: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_events
     SET status = CASE status WHEN 'skipped' THEN 'ignored_skipped' WHEN 'duplicated' THEN 'ignored_duplicated'
                  ELSE 'ignored_failed' END,
         lease_until = NULL, updated_at = now()
     WHERE id = $1 AND status IN ('pending', 'failed', 'skipped', 'duplicated')`,
    [eventId],
  );
  return rowCount > 0;
}

/** Makes the event due now for one more attempt; false while an attempt is in flight. */
export async function makeEventDue(db: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_events SET status = 'pending', next_attempt_at = now(), updated_at = now()
     WHERE id = $1 AND (lease_until IS NULL OR lease_until <= now())`,
    [eventId],
  );
  return rowCount > 0;
}
