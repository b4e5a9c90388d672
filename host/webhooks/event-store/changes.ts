/**
 * The outbox of changes (webhook_changes, migration 260): a People write records one row per change in its own
 * transaction (`insertChange`); the delivery worker turns each into one pending webhook_events row per subscription
 * active at that moment and deletes it, in one statement (`fanOutChanges`). A write so costs one row however many
 * subscribe, and two workers never fan out the same change (`FOR UPDATE SKIP LOCKED`).
 */
import type { Queryable } from '../../db/database.ts';
import { activeSubscribersSql } from '../subscription-store.ts';

/** A change to announce to whoever subscribes to it. */
export interface ChangeEvent {
  organizationId: string;
  name: string;
  /** The payload as delivered (a JSON string). */
  payload: string;
}

/**
 * Records the change when at least one active subscription of its organization wants its name and then sends
 * `pg_notify(channel, name)` (delivered at commit only): one statement, in the caller's transaction. Returns whether
 * it was recorded (nothing is when nobody subscribes).
 */
export async function insertChange(tx: Queryable, change: ChangeEvent, channel: string): Promise<boolean> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH inserted AS (
       INSERT INTO webhook_changes (organization_id, name, payload)
       SELECT $1::bigint, $2::text, $3::text
       WHERE EXISTS (${activeSubscribersSql('$1::bigint', '$2::text')})
       RETURNING 1),
     recorded AS (SELECT count(*)::int AS n FROM inserted)
     SELECT n, CASE WHEN n > 0 THEN pg_notify($4, $2) END AS notified FROM recorded`,
    [change.organizationId, change.name, change.payload, channel],
  );
  return rows[0]!.n > 0;
}

/** What one fan-out did. */
export interface FanOut {
  /** Changes taken (and deleted). */
  changes: number;
  /** Events inserted for them. */
  events: number;
}

/**
 * Fans out at most `limit` changes, oldest first: one pending event per active subscription of the change's
 * organization to its name (created and due at the change's time, so events keep the order of their changes), and
 * the changes deleted, in one statement. A change nobody subscribes to any more is deleted with no event.
 */
export async function fanOutChanges(db: Queryable, limit: number): Promise<FanOut> {
  const { rows } = await db.query<FanOut>(
    `WITH taken AS (
       DELETE FROM webhook_changes
       WHERE id IN (SELECT id FROM webhook_changes ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, organization_id, name, payload, created_at),
     inserted AS (
       INSERT INTO webhook_events (organization_id, subscription_id, name, payload, next_attempt_at, created_at)
       SELECT c.organization_id, s.id, c.name, c.payload, c.created_at, c.created_at
       FROM taken c CROSS JOIN LATERAL (${activeSubscribersSql('c.organization_id', 'c.name')}) s
       ORDER BY c.id, s.id
       RETURNING 1)
     SELECT (SELECT count(*) FROM taken)::int AS changes, (SELECT count(*) FROM inserted)::int AS events`,
    [limit],
  );
  return rows[0]!;
}
