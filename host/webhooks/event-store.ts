/**
 * The SQL of webhook_events and webhook_deliveries as the delivery worker uses them: claiming due events (one
 * statement, `FOR UPDATE SKIP LOCKED`, so workers in several processes never claim the same event and never wait for
 * each other) and finishing one attempt (one statement: its delivery row, the event's new state and, when the
 * attempt deactivates the subscription, the subscription).
 */
import type { Queryable } from '../db/database.ts';

/** An event claimed for one attempt, with what the attempt needs of its subscription. */
export interface ClaimedEvent {
  id: string;
  uuid: string;
  organization_id: string;
  /** Null for an add-on lifecycle event (record-lifecycle-event.ts): it carries its own URL and secret. */
  subscription_id: string | null;
  name: string;
  payload: string;
  /** The number of the attempt claimed (1 for the first). */
  attempt: number;
  url: string;
  active: boolean;
  /** Whether the subscription's person may still see People data (active, with a People role). */
  visible: boolean;
  /** The subscription's sealed secret, or a lifecycle event's own (`lifecycle` tells which). */
  authenticity_secret: string;
  /** True for an add-on lifecycle event: no subscription, its secret signs in the `raw` format. */
  lifecycle: boolean;
  /** The previous secret while its grace window lasts, else null. */
  previous_secret: string | null;
}

/**
 * Claims up to `limit` due events and leases them for `leaseMs`: each claim starts one attempt. An event whose lease
 * ran out (its worker died mid-attempt) is due again — delivery is at least once.
 */
export async function claimDueEvents(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
  const { rows } = await db.query<ClaimedEvent>(
    `WITH due AS (
       SELECT id, subscription_id FROM webhook_events
       WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
       ORDER BY next_attempt_at, id
       LIMIT $1
       FOR UPDATE SKIP LOCKED)
     UPDATE webhook_events e
     SET attempts = e.attempts + 1, lease_until = now() + $2 * interval '1 millisecond'
     FROM due LEFT JOIN webhook_subscriptions s ON s.id = due.subscription_id
     WHERE e.id = due.id
     RETURNING e.id::text, e.uuid::text, e.organization_id::text, e.subscription_id::text, e.name, e.payload,
       e.attempts AS attempt, COALESCE(s.url, e.target_url) AS url, COALESCE(s.active, true) AS active,
       e.subscription_id IS NULL OR EXISTS (SELECT 1 FROM people p JOIN person_product_roles r ON r.person_id = p.id AND r.product = 'people'
               WHERE p.id = s.person_id AND p.status = 'active') AS visible,
       COALESCE(s.authenticity_secret, e.signing_secret) AS authenticity_secret,
       e.subscription_id IS NULL AS lifecycle,
       CASE WHEN s.previous_secret_until > now() THEN s.previous_secret END AS previous_secret`,
    [limit, leaseMs],
  );
  return rows;
}

/** Milliseconds until the next pending event falls due (0 when one is due now), or undefined when none is pending. */
export async function msUntilNextDue(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT GREATEST(0, EXTRACT(EPOCH FROM (min(GREATEST(next_attempt_at, COALESCE(lease_until, next_attempt_at))) - now())) * 1000)::float8 AS ms
     FROM webhook_events WHERE status = 'pending'`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : ms;
}

/** What one attempt sent and received. */
export interface AttemptRecord {
  requestUrl: string;
  requestHeaders: [string, string][];
  requestBody: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string | string[] | undefined> | null;
  responseBody: string | null;
  responseTruncated: boolean;
  /** Why no response came (an OutboundError code). */
  error: string | null;
  startedAt: Date;
  durationMs: number;
}

/** How an attempt ends the event. */
export interface AttemptOutcome {
  /** The event's status after the attempt. */
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** When it stays pending: milliseconds until the next attempt. */
  retryInMs?: number;
  /** Whether the subscription is deactivated (410 Gone, or the last attempt failed). */
  deactivate: boolean;
}

/**
 * Records the attempt (when one was sent) and its outcome, in one statement. Nothing changes when the event's
 * attempt counter moved on (its lease ran out and another worker claimed it): that worker's attempt decides.
 */
export async function finishAttempt(
  db: Queryable,
  event: Pick<ClaimedEvent, 'id' | 'attempt'>,
  outcome: AttemptOutcome,
  record: AttemptRecord | undefined,
): Promise<boolean> {
  const { rows } = await db.query<{ finished: boolean }>(
    `WITH e AS (
       UPDATE webhook_events
       SET status = $3, lease_until = NULL, updated_at = now(),
           next_attempt_at = CASE WHEN $4::float8 IS NULL THEN next_attempt_at ELSE now() + $4::float8 * interval '1 millisecond' END
       WHERE id = $1 AND attempts = $2 AND status = 'pending'
       RETURNING id, subscription_id),
     d AS (
       INSERT INTO webhook_deliveries (event_id, attempt, request_url, request_headers, request_body, response_status,
         response_headers, response_body, response_truncated, error, started_at, duration_ms)
       SELECT e.id, $2, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $13, $14, $15 FROM e WHERE $16::boolean),
     s AS (
       UPDATE webhook_subscriptions SET active = false, updated_at = now()
       WHERE $5::boolean AND id = (SELECT subscription_id FROM e))
     SELECT EXISTS (SELECT 1 FROM e) AS finished`,
    [
      event.id,
      event.attempt,
      outcome.status,
      outcome.retryInMs ?? null,
      outcome.deactivate,
      record?.requestUrl ?? '',
      JSON.stringify(record?.requestHeaders ?? []),
      record?.requestBody ?? '',
      record?.responseStatus ?? null,
      record?.responseHeaders ? JSON.stringify(record.responseHeaders) : null,
      record?.responseBody ?? null,
      record?.responseTruncated ?? false,
      record?.error ?? null,
      record?.startedAt ?? new Date(),
      record?.durationMs ?? 0,
      record !== undefined,
    ],
  );
  return rows[0]!.finished;
}

/** Deletes finished events (and their deliveries) last changed more than `days` ago; returns how many. */
export async function deleteFinishedEvents(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_events WHERE status <> 'pending' AND updated_at < now() - $1 * interval '1 day'`,
    [days],
  );
  return rowCount;
}
