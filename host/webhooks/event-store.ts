/**
 * The SQL of webhook_events and webhook_deliveries as the delivery worker uses them: claiming due events (one
 * statement, `FOR UPDATE SKIP LOCKED`, so workers in several processes never claim the same event and never wait for
 * each other) and finishing attempts (one statement for any number of them: their delivery rows, the events' new
 * states and, when an attempt deactivates its subscription, the subscription).
 */
import type { Queryable } from '../db/database.ts';

/** An event claimed for one attempt, with what the attempt needs of its subscription. */
export interface ClaimedEvent {
  id: string;
  uuid: string;
  organization_id: string;
  subscription_id: string;
  name: string;
  payload: string;
  /** The number of the attempt claimed (1 for the first). */
  attempt: number;
  url: string;
  active: boolean;
  /** Whether the subscription's person may still see People data (active, with a People role). */
  visible: boolean;
  authenticity_secret: string;
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
       SELECT id FROM webhook_events
       WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
       ORDER BY next_attempt_at, id
       LIMIT $1
       FOR UPDATE SKIP LOCKED)
     UPDATE webhook_events e
     SET attempts = e.attempts + 1, lease_until = now() + $2 * interval '1 millisecond'
     FROM due, webhook_subscriptions s
     WHERE e.id = due.id AND s.id = e.subscription_id
     RETURNING e.id::text, e.uuid::text, e.organization_id::text, e.subscription_id::text, e.name, e.payload,
       e.attempts AS attempt, s.url, s.active,
       EXISTS (SELECT 1 FROM people p JOIN person_product_roles r ON r.person_id = p.id AND r.product = 'people'
               WHERE p.id = s.person_id AND p.status = 'active') AS visible,
       s.authenticity_secret,
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

/** One ended attempt to record: the event claimed, how the attempt ends it, and what was sent (none when skipped). */
export interface FinishedAttempt {
  event: Pick<ClaimedEvent, 'id' | 'attempt'>;
  outcome: AttemptOutcome;
  record: AttemptRecord | undefined;
}

/**
 * Records ended attempts and their outcomes, all in one statement: each attempt's delivery row (when one was sent),
 * its event's new state and, for an attempt that deactivates, the subscription. An attempt whose event's counter
 * moved on (its lease ran out and another worker claimed it) changes nothing: that worker's attempt decides.
 * Resolves with one boolean per attempt, in order: whether it was recorded.
 */
export async function finishAttempts(db: Queryable, attempts: FinishedAttempt[]): Promise<boolean[]> {
  if (attempts.length === 0) return [];
  const input = attempts.map(({ event, outcome, record }) => ({
    id: event.id,
    attempt: event.attempt,
    status: outcome.status,
    retry_ms: outcome.retryInMs ?? null,
    deactivate: outcome.deactivate,
    sent: record !== undefined,
    request_url: record?.requestUrl ?? '',
    request_headers: record?.requestHeaders ?? [],
    request_body: record?.requestBody ?? '',
    response_status: record?.responseStatus ?? null,
    response_headers: record?.responseHeaders ?? null,
    response_body: record?.responseBody ?? null,
    response_truncated: record?.responseTruncated ?? false,
    error: record?.error ?? null,
    started_at: (record?.startedAt ?? new Date()).toISOString(),
    duration_ms: Math.round(record?.durationMs ?? 0),
  }));
  const { rows } = await db.query<{ id: string; attempts: number }>(
    `WITH x AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, attempt integer, status text, retry_ms float8,
         deactivate boolean, sent boolean, request_url text, request_headers jsonb, request_body text,
         response_status integer, response_headers jsonb, response_body text, response_truncated boolean, error text,
         started_at timestamptz, duration_ms integer)),
     e AS (
       UPDATE webhook_events ev
       SET status = x.status, lease_until = NULL, updated_at = now(),
           next_attempt_at = CASE WHEN x.retry_ms IS NULL THEN ev.next_attempt_at
                                  ELSE now() + x.retry_ms * interval '1 millisecond' END
       FROM x
       WHERE ev.id = x.id AND ev.attempts = x.attempt AND ev.status = 'pending'
       RETURNING ev.id, ev.attempts, ev.subscription_id),
     d AS (
       INSERT INTO webhook_deliveries (event_id, attempt, request_url, request_headers, request_body, response_status,
         response_headers, response_body, response_truncated, error, started_at, duration_ms)
       SELECT x.id, x.attempt, x.request_url, x.request_headers, x.request_body, x.response_status,
         x.response_headers, x.response_body, x.response_truncated, x.error, x.started_at, x.duration_ms
       FROM x JOIN e ON e.id = x.id AND e.attempts = x.attempt WHERE x.sent),
     s AS (
       UPDATE webhook_subscriptions SET active = false, updated_at = now()
       WHERE id IN (SELECT e.subscription_id FROM e JOIN x ON x.id = e.id AND x.attempt = e.attempts WHERE x.deactivate))
     SELECT id::text, attempts FROM e`,
    [JSON.stringify(input)],
  );
  const finished = new Set(rows.map((row) => `${row.id}:${row.attempts}`));
  return attempts.map(({ event }) => finished.has(`${event.id}:${event.attempt}`));
}

/** Deletes finished events (and their deliveries) last changed more than `days` ago; returns how many. */
export async function deleteFinishedEvents(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_events WHERE status <> 'pending' AND updated_at < now() - $1 * interval '1 day'`,
    [days],
  );
  return rowCount;
}
