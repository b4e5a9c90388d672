/**
 * "Send a test event": one event for one subscription, through the normal outbox — recorded like a People change's
 * event, then claimed, signed, retried and shown (events, deliveries) like any other. The developer pages' button
 * calls it; so may a CLI (`webhooks trigger`) or the API.
 */
import type { Queryable } from '../db/database.ts';
import { ValidationError } from '../errors.ts';
import { insertEvents } from './event-store/index.ts';
import { notifyWorkers } from './record-event.ts';

/** The subscription a test event goes to (a row of subscription-store.ts, already checked to be the caller's). */
export interface TestEventSubscription {
  id: string;
  organization_id: string;
  /** The event name it subscribes to: the test event carries it. */
  name: string;
  active: boolean;
}

/**
 * The payload of a test event: a JSON:API document naming the subscription tested, with `meta.test` true so a
 * receiver can tell it from a change (a real event's payload is the changed resource).
 */
export function testEventPayload(subscription: TestEventSubscription, sentAt: Date): string {
  return JSON.stringify({
    data: {
      type: 'WebhookSubscription',
      id: subscription.id,
      attributes: { name: subscription.name },
    },
    included: [],
    meta: { test: true, sent_at: sentAt.toISOString() },
  });
}

/**
 * Records a test event named like the subscription's events for that subscription only and wakes the workers;
 * returns its id and uuid (the `webhook-id` of its deliveries). 422 for an inactive subscription (nothing would be
 * sent: activate it first).
 */
export async function sendTestEvent(
  db: Queryable,
  subscription: TestEventSubscription,
  now: Date = new Date(),
): Promise<{ id: string; uuid: string }> {
  if (!subscription.active)
    throw new ValidationError('Event', [
      { parameter: 'subscription', detail: 'the subscription is inactive; activate it before sending a test event' },
    ]);
  const [event] = await insertEvents(db, {
    organizationId: subscription.organization_id,
    subscriptionIds: [subscription.id],
    name: subscription.name,
    payload: testEventPayload(subscription, now),
  });
  await notifyWorkers(db, subscription.name);
  return event!;
}
