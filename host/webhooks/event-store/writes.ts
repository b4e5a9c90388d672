/**
 * The writes of webhook_events (the outbox) and webhook_deliveries: inserting a change's events, claiming due ones
 * (one statement, `FOR UPDATE SKIP LOCKED`: workers of several processes never claim the same event nor wait for each
 * other), finishing attempts (one statement for a batch: their delivery rows and the events' new states), retention,
 * ignore and redeliver. The reads of the API and the pages: reads.ts. Subscriptions: ../subscription-store.ts.
 */
import type { Queryable } from '../../db/database.ts';
import { activeSubscribersSql, deliveryTargetsSql, type DeliveryTarget } from '../subscription-store.ts';

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

/** A change to announce to whoever subscribes to it. */
export interface ChangeEvent {
  organizationId: string;
  name: string;
  /** The payload as delivered (a JSON string). */
  payload: string;
}

/**
 * Inserts one pending event per active subscription of the organization to the name and, when there was one, sends
 * `pg_notify(channel, name)` (delivered at commit only): one statement, with or without subscribers. Returns how
 * many events were recorded.
 */
export async function insertEventsForSubscribers(tx: Queryable, event: ChangeEvent, channel: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH inserted AS (
       INSERT INTO webhook_events (organization_id, subscription_id, name, payload)
       SELECT $1::bigint, s.id, $2::text, $3::text FROM (${activeSubscribersSql('$1::bigint', '$2::text')}) s
       RETURNING 1),
     recorded AS (SELECT count(*)::int AS n FROM inserted)
     SELECT n, CASE WHEN n > 0 THEN pg_notify($4, $2) END AS notified FROM recorded`,
    [event.organizationId, event.name, event.payload, channel],
  );
  return rows[0]!.n;
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

/** An event claimed for one attempt. */
export interface ClaimedEvent {
  id: string;
  uuid: string;
  organization_id: string;
  /** Null for an add-on lifecycle event: it carries its own target (`target_url`, `signing_secret`). */
  subscription_id: string | null;
  name: string;
  payload: string;
  /** The number of the attempt claimed (1 for the first). */
  attempt: number;
  /** A lifecycle event's URL, else null. */
  target_url: string | null;
  /** A lifecycle event's sealed signing secret, else null. */
  signing_secret: string | null;
  /** The subscription's target as the claim found it; null for a lifecycle event or a deleted subscription. */
  subscription_target: DeliveryTarget | null;
}

/**
 * Claims up to `limit` due events and leases them for `leaseMs`: each claim starts one attempt. An event whose lease
 * ran out (its worker died mid-attempt) is due again — delivery is at least once.
 */
export async function claimDueEvents(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
  const { rows } = await db.query<
    Omit<ClaimedEvent, 'subscription_target'> & {
      t_url: string | null;
      t_active: boolean | null;
      t_visible: boolean | null;
      t_secret: string | null;
      t_previous: string | null;
    }
  >(
    `WITH claimed AS (
       UPDATE webhook_events e
       SET attempts = e.attempts + 1, lease_until = now() + $2 * interval '1 millisecond'
       WHERE e.id = ANY(ARRAY(
         SELECT id FROM webhook_events
         WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
         ORDER BY next_attempt_at, id
         LIMIT $1
         FOR UPDATE SKIP LOCKED))
       RETURNING e.id, e.uuid, e.organization_id, e.subscription_id, e.name, e.payload, e.attempts, e.target_url,
         e.signing_secret, e.next_attempt_at)
     SELECT c.id::text, c.uuid::text, c.organization_id::text, c.subscription_id::text, c.name, c.payload,
       c.attempts AS attempt, c.target_url, c.signing_secret,
       t.url AS t_url, t.active AS t_active, t.visible AS t_visible, t.authenticity_secret AS t_secret,
       t.previous_secret AS t_previous
     FROM claimed c LEFT JOIN (${deliveryTargetsSql()}) t ON t.id = c.subscription_id
     ORDER BY c.next_attempt_at, c.id`,
    [limit, leaseMs],
  );
  return rows.map(({ t_url, t_active, t_visible, t_secret, t_previous, ...event }) => ({
    ...event,
    subscription_target:
      event.subscription_id === null || t_url === null
        ? null
        : {
            id: event.subscription_id,
            url: t_url,
            active: t_active === true,
            visible: t_visible === true,
            authenticity_secret: t_secret!,
            previous_secret: t_previous,
          },
  }));
}

/** Milliseconds until the next pending event falls due (0 when one is due now), or undefined when none is pending. */
export async function msUntilNextDue(db: Queryable): Promise<number | undefined> {
  // No GREATEST(0, …) in SQL: GREATEST skips a NULL, so an outbox with nothing pending would read as "due now" and
  // the worker would poll without pause.
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM (min(GREATEST(next_attempt_at, COALESCE(lease_until, next_attempt_at))) - now())) * 1000)::float8 AS ms
     FROM webhook_events WHERE status = 'pending'`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, ms);
}

/** What one attempt sent and received. */
export interface AttemptRecord {
  requestUrl: string;
  requestHeaders: [string, string][];
  /** Sent, not stored: the delivery row's body is rebuilt from its event on read (reads.ts). */
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
  event: Pick<ClaimedEvent, 'id' | 'attempt' | 'subscription_id'>;
  outcome: AttemptOutcome;
  record: AttemptRecord | undefined;
}

/**
 * Records ended attempts and their outcomes, all in one statement: each attempt's delivery row (when one was sent) and
 * its event's new state (a deactivation is the caller's, in one transaction with it). An attempt whose event's counter
 * moved on (its lease ran out and another worker claimed it) changes nothing: that worker's attempt decides.
 * Resolves with one boolean per attempt, in order: whether it was recorded.
 *
 * The request body is not stored: it is the event's own body for that attempt, rebuilt on read (reads.ts). Each
 * column goes as an array parameter of its own and the events are found by their ids (`= ANY`), so the statement is
 * prepared once on the embedded database (a parameter stays under its literal limit) and its plan reads only the
 * batch's rows whatever the outbox holds or its statistics say.
 */
export async function finishAttempts(db: Queryable, attempts: FinishedAttempt[]): Promise<boolean[]> {
  if (attempts.length === 0) return [];
  const column = <T>(pick: (attempt: FinishedAttempt) => T): T[] => attempts.map(pick);
  const { rows } = await db.query<{ id: string; attempts: number }>(
    `WITH x AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::float8[], $5::bool[], $6::text[], $7::text[],
         $8::int[], $9::text[], $10::text[], $11::bool[], $12::text[], $13::timestamptz[], $14::int[])
         AS x(id, attempt, status, retry_ms, sent, request_url, request_headers, response_status, response_headers,
           response_body, response_truncated, error, started_at, duration_ms)),
     e AS (
       UPDATE webhook_events ev
       SET status = x.status, lease_until = NULL, updated_at = now(),
           next_attempt_at = CASE WHEN x.retry_ms IS NULL THEN ev.next_attempt_at
                                  ELSE now() + x.retry_ms * interval '1 millisecond' END
       FROM x
       WHERE ev.id = ANY($1::bigint[]) AND ev.id = x.id AND ev.attempts = x.attempt AND ev.status = 'pending'
       RETURNING ev.id, ev.attempts),
     d AS (
       INSERT INTO webhook_deliveries (event_id, attempt, request_url, request_headers, response_status,
         response_headers, response_body, response_truncated, error, started_at, duration_ms)
       SELECT x.id, x.attempt, x.request_url, x.request_headers::jsonb, x.response_status,
         x.response_headers::jsonb, x.response_body, x.response_truncated, x.error, x.started_at, x.duration_ms
       FROM x JOIN e ON e.id = x.id AND e.attempts = x.attempt WHERE x.sent)
     SELECT id::text, attempts FROM e`,
    [
      column(({ event }) => event.id),
      column(({ event }) => event.attempt),
      column(({ outcome }) => outcome.status),
      column(({ outcome }) => outcome.retryInMs ?? null),
      column(({ record }) => record !== undefined),
      column(({ record }) => record?.requestUrl ?? ''),
      column(({ record }) => JSON.stringify(record?.requestHeaders ?? [])),
      column(({ record }) => record?.responseStatus ?? null),
      column(({ record }) => (record?.responseHeaders ? JSON.stringify(record.responseHeaders) : null)),
      column(({ record }) => record?.responseBody ?? null),
      column(({ record }) => record?.responseTruncated ?? false),
      column(({ record }) => record?.error ?? null),
      column(({ record }) => (record?.startedAt ?? new Date()).toISOString()),
      column(({ record }) => Math.round(record?.durationMs ?? 0)),
    ],
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
