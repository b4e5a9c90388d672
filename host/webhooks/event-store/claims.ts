/**
 * Claiming due events of webhook_events (the outbox) for an attempt each: `FOR UPDATE SKIP LOCKED` and a lease, so
 * workers of several processes never claim the same event nor wait for each other, with the claimed events'
 * subscription targets read in the same statement. The claim is a fragment too: the finishing statement
 * (finish-attempts.ts) claims the next batch with it. When to wake: `msUntilNextDue`.
 */
import type { Queryable } from '../../db/database.ts';
import { deliveryTargetsSql, type DeliveryTarget } from '../subscription-store.ts';

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

/** A row of CLAIMED_SELECT. */
export type ClaimedRow = Omit<ClaimedEvent, 'subscription_target'> & {
  t_url: string | null;
  t_active: boolean | null;
  t_visible: boolean | null;
  t_secret: string | null;
  t_previous: string | null;
};

/**
 * The CTE `claimed`: up to `limit` due events, oldest due first, not among `exclude` (a bigint[] placeholder: the
 * events the same statement finishes), their attempt counted and leased for `leaseMs` milliseconds (placeholders such
 * as `$1`). The candidates are locked by a sub-select and updated by id, so the plan reads the due index and the
 * claimed rows only, whatever the outbox's statistics say.
 */
export function claimCte(limit: string, leaseMs: string, exclude?: string): string {
  return `claimed AS (
       UPDATE webhook_events e
       SET attempts = e.attempts + 1, lease_until = now() + ${leaseMs} * interval '1 millisecond'
       WHERE e.id = ANY(ARRAY(
         SELECT id FROM webhook_events
         WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
           ${exclude ? `AND id <> ALL(${exclude})` : ''}
         ORDER BY next_attempt_at, id
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED))
       RETURNING e.id, e.uuid, e.organization_id, e.subscription_id, e.name, e.payload, e.attempts, e.target_url,
         e.signing_secret, e.next_attempt_at)`;
}

/** The claimed events (CTE `claimed`) with their subscriptions' targets, as ClaimedRow columns, oldest due first. */
export const CLAIMED_SELECT = `SELECT c.id::text AS id, c.uuid::text AS uuid, c.organization_id::text AS organization_id,
       c.subscription_id::text AS subscription_id, c.name, c.payload, c.attempts AS attempt, c.target_url,
       c.signing_secret, t.url AS t_url, t.active AS t_active, t.visible AS t_visible,
       t.authenticity_secret AS t_secret, t.previous_secret AS t_previous
     FROM claimed c LEFT JOIN (${deliveryTargetsSql()}) t ON t.id = c.subscription_id
     ORDER BY c.next_attempt_at, c.id`;

/** A ClaimedRow as the worker uses it. */
export function toClaimedEvent({
  t_url,
  t_active,
  t_visible,
  t_secret,
  t_previous,
  ...event
}: ClaimedRow): ClaimedEvent {
  return {
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
  };
}

/**
 * Claims up to `limit` due events and leases them for `leaseMs`: each claim starts one attempt. An event whose lease
 * ran out (its worker died mid-attempt) is due again — delivery is at least once.
 */
export async function claimDueEvents(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
  const { rows } = await db.query<ClaimedRow>(`WITH ${claimCte('$1', '$2')} ${CLAIMED_SELECT}`, [limit, leaseMs]);
  return rows.map(toClaimedEvent);
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
