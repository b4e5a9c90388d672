/**
 * Finishing attempts: one statement records a batch of ended attempts (their delivery rows and their events' new
 * states) and, in the same statement, claims the next batch of due events (claims.ts's fragment), so a busy worker
 * runs one statement per batch instead of two.
 */
import type { Queryable } from '../../db/database.ts';
import { CLAIMED_SELECT, claimCte, toClaimedEvent, type ClaimedEvent, type ClaimedRow } from './claims.ts';

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

/** The next batch the finishing statement claims: up to `limit` events (0: none), leased for `leaseMs`. */
export interface NextClaim {
  limit: number;
  leaseMs: number;
}

/** What a finishing statement did: whether each attempt was recorded (in order), and the events it claimed. */
export interface FinishedBatch {
  recorded: boolean[];
  claimed: ClaimedEvent[];
}

/**
 * Records ended attempts and their outcomes, all in one statement: each attempt's delivery row (when one was sent) and
 * its event's new state (a deactivation is the caller's, in one transaction with it). An attempt whose event's counter
 * moved on (its lease ran out and another worker claimed it) changes nothing: that worker's attempt decides. The same
 * statement claims up to `next.limit` due events other than the batch's (`claimDueEvents`'s claim).
 *
 * The request body is not stored: it is the event's own body for that attempt, rebuilt on read (reads.ts). Each
 * column goes as an array parameter of its own and the events are found by their ids (`= ANY`), so the statement is
 * prepared once on the embedded database (a parameter stays under its literal limit) and its plan reads only the
 * batch's rows whatever the outbox holds or its statistics say.
 */
export async function finishAttempts(
  db: Queryable,
  attempts: FinishedAttempt[],
  next: NextClaim = { limit: 0, leaseMs: 0 },
): Promise<FinishedBatch> {
  if (attempts.length === 0) return { recorded: [], claimed: [] };
  const column = <T>(pick: (attempt: FinishedAttempt) => T): T[] => attempts.map(pick);
  const { rows } = await db.query<{ recorded: string[]; claimed: ClaimedRow[] | null }>(
    `WITH x AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::float8[], $5::bool[], $6::text[], $7::text[],
         $8::int[], $9::text[], $10::text[], $11::bool[], $12::text[], $13::timestamptz[], $14::int[])
         AS x(id, attempt, status, retry_ms, sent, request_url, request_headers, response_status, response_headers,
           response_body, response_truncated, error, started_at, duration_ms)),
     f AS (
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
       FROM x JOIN f ON f.id = x.id AND f.attempts = x.attempt WHERE x.sent),
     ${claimCte('$15', '$16', '$1::bigint[]')}
     SELECT ARRAY(SELECT f.id || ':' || f.attempts FROM f) AS recorded,
       (SELECT json_agg(n) FROM (${CLAIMED_SELECT}) n) AS claimed`,
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
      next.limit,
      next.leaseMs,
    ],
  );
  const recorded = new Set(rows[0]!.recorded);
  return {
    recorded: attempts.map(({ event }) => recorded.has(`${event.id}:${event.attempt}`)),
    claimed: (rows[0]!.claimed ?? []).map(toClaimedEvent),
  };
}
