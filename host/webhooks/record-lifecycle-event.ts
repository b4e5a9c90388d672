/**
 * Records an add-on lifecycle event (host/addons/lifecycle) in the outbox, inside the caller's transaction: one
 * `webhook_events` row without a subscription, carrying its own target URL and its signing secret (sealed with the
 * host's secret box), so the delivery worker sends, signs, retries and keeps it like any event. A rolled-back state
 * change has no event; a committed one always has its event, and the NOTIFY wakes the workers at commit. The SQL is
 * the table's owner's (event-store/).
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { insertLifecycleEvent } from './event-store/index.ts';
import { notifyWorkers } from './record-event.ts';

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
  const { uuid } = await insertLifecycleEvent(tx, {
    organizationId: event.organizationId,
    name: event.name,
    payload: JSON.stringify(event.payload),
    targetUrl: event.url,
    sealedSecret: box.seal(event.secret, LIFECYCLE_SECRET_AAD),
  });
  await notifyWorkers(tx, event.name);
  return uuid;
}

/** Opens a lifecycle event's sealed signing secret. */
export function openLifecycleSecret(box: SecretBox, sealed: string): string {
  return box.open(sealed, LIFECYCLE_SECRET_AAD);
}
