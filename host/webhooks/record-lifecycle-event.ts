/**
 * Records an add-on lifecycle event (host/addons/lifecycle) in the outbox, inside the caller's transaction: one
 * `webhook_events` row without a subscription, carrying its own target URL and its signing secret (sealed with the
 * host's secret box), so the delivery worker sends, signs, retries and keeps it like any event. A rolled-back state
 * change has no event; a committed one always has its event, and the NOTIFY wakes the workers at commit.
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { WEBHOOK_EVENTS_CHANNEL } from './record-event.ts';

/** Binds a lifecycle event's sealed secret to its column (a value moved elsewhere does not open). */
const LIFECYCLE_SECRET_AAD = 'webhook_events:signing_secret';

/** One lifecycle event to send to one URL. */
export interface LifecycleEventInput {
  organizationId: string;
  name: string;
  /** Where it goes (checked by the host's address policy at each attempt, like a subscription's URL). */
  url: string;
  /** Keys both signatures; its Standard Webhooks key is its UTF-8 bytes (`raw` format). */
  secret: string;
  /** The event's payload (serialized as JSON into the delivery's `payload` string). */
  payload: unknown;
}

/** Inserts the event; returns its uuid (the `webhook-id` of every attempt). */
export async function recordLifecycleEvent(tx: Queryable, box: SecretBox, event: LifecycleEventInput): Promise<string> {
  const { rows } = await tx.query<{ uuid: string }>(
    `INSERT INTO webhook_events (organization_id, subscription_id, name, payload, target_url, signing_secret)
     VALUES ($1, NULL, $2, $3, $4, $5) RETURNING uuid::text`,
    [
      event.organizationId,
      event.name,
      JSON.stringify(event.payload),
      event.url,
      box.seal(event.secret, LIFECYCLE_SECRET_AAD),
    ],
  );
  await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_EVENTS_CHANNEL, event.name]);
  return rows[0]!.uuid;
}

/** Opens a lifecycle event's sealed signing secret. */
export function openLifecycleSecret(box: SecretBox, sealed: string): string {
  return box.open(sealed, LIFECYCLE_SECRET_AAD);
}
