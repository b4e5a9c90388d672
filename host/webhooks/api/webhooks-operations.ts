/**
 * The operations of `/webhooks/v2`, declared as data for its OpenAPI document (webhooks-openapi.ts). The router
 * (webhooks-router.ts) serves the same list; every test response is validated against the document, so a route the
 * document does not describe, or describes otherwise, fails its test.
 */
import type { ResourceDefinition } from '../../jsonapi/resource.ts';
import { availableEventResource } from './available-event-resource.ts';
import { deliveryResource } from './delivery-resource.ts';
import { eventResource } from './event-resource.ts';
import { webhookSubscriptionResource } from './webhook-subscription-resource.ts';

/** One operation of the webhooks API. */
export interface WebhooksOperation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template relative to /webhooks/v2. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** What a success answers: a page, one resource, or nothing (204). */
  answers: 'collection' | 'single' | 'none';
  definition: ResourceDefinition;
  parentType: string;
  /** The success status. */
  status: 200 | 201 | 204;
  /** Attributes a write body may assign (`data.attributes`). */
  body?: { required: readonly string[]; attributes: Record<string, Record<string, unknown>> };
}

const SUBSCRIPTION = '/webhook_subscriptions/{webhook_subscription_id}';
const EVENT = `${SUBSCRIPTION}/events/{event_id}`;

/** Every operation, in the order the API lists them. */
export const WEBHOOKS_OPERATIONS: readonly WebhooksOperation[] = [
  {
    method: 'get',
    path: '/available_events',
    operationId: 'listAvailableEvents',
    summary: 'List the event names',
    description: 'The event names a subscription may use.',
    answers: 'collection',
    definition: availableEventResource,
    parentType: 'Organization',
    status: 200,
  },
  {
    method: 'get',
    path: '/webhook_subscriptions',
    operationId: 'listWebhookSubscriptions',
    summary: 'List your webhook subscriptions',
    description: "The requester's own subscriptions; where[application_id] narrows to one application's.",
    answers: 'collection',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 200,
  },
  {
    method: 'post',
    path: '/webhook_subscriptions',
    operationId: 'createWebhookSubscription',
    summary: 'Subscribe a URL to an event',
    description: 'Creates a subscription with a new authenticity secret. Needs the people viewer role or higher.',
    answers: 'single',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 201,
    body: {
      required: ['name', 'url'],
      attributes: {
        name: { type: 'string', enum: webhookSubscriptionResource.attributes.name!.enum },
        url: { type: 'string', format: 'uri' },
        active: { type: 'boolean', default: true },
      },
    },
  },
  {
    method: 'get',
    path: SUBSCRIPTION,
    operationId: 'getWebhookSubscription',
    summary: 'Read a webhook subscription',
    description: 'One of your subscriptions; anyone else’s id is 404.',
    answers: 'single',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 200,
  },
  {
    method: 'patch',
    path: SUBSCRIPTION,
    operationId: 'updateWebhookSubscription',
    summary: 'Activate or deactivate a webhook subscription',
    description: 'Only `active` may change.',
    answers: 'single',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 200,
    body: { required: [], attributes: { active: { type: 'boolean' } } },
  },
  {
    method: 'delete',
    path: SUBSCRIPTION,
    operationId: 'deleteWebhookSubscription',
    summary: 'Delete a webhook subscription',
    description: 'Deletes it with its events and their deliveries.',
    answers: 'none',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 204,
  },
  {
    method: 'post',
    path: `${SUBSCRIPTION}/rotate_secret`,
    operationId: 'rotateWebhookSubscriptionSecret',
    summary: 'Rotate the authenticity secret',
    description: 'A new secret signs from now on; the previous one signs too for 24 hours (webhook-signature).',
    answers: 'single',
    definition: webhookSubscriptionResource,
    parentType: 'Organization',
    status: 200,
  },
  {
    method: 'get',
    path: `${SUBSCRIPTION}/events`,
    operationId: 'listEvents',
    summary: "List a subscription's events",
    description: 'Oldest first; where[status], where[uuid], order=created_at.',
    answers: 'collection',
    definition: eventResource,
    parentType: 'WebhookSubscription',
    status: 200,
  },
  {
    method: 'get',
    path: EVENT,
    operationId: 'getEvent',
    summary: 'Read an event',
    description: 'One event of one of your subscriptions.',
    answers: 'single',
    definition: eventResource,
    parentType: 'WebhookSubscription',
    status: 200,
  },
  {
    method: 'post',
    path: `${EVENT}/ignore`,
    operationId: 'ignoreEvent',
    summary: 'Ignore an event',
    description:
      'A pending or failed event becomes ignored_failed (no more attempts); skipped and duplicated ones ignored_….',
    answers: 'single',
    definition: eventResource,
    parentType: 'WebhookSubscription',
    status: 200,
  },
  {
    method: 'post',
    path: `${EVENT}/redeliver`,
    operationId: 'redeliverEvent',
    summary: 'Redeliver an event',
    description: 'One more attempt, now (422 while the subscription is inactive or an attempt is in flight).',
    answers: 'single',
    definition: eventResource,
    parentType: 'WebhookSubscription',
    status: 200,
  },
  {
    method: 'get',
    path: `${EVENT}/deliveries`,
    operationId: 'listDeliveries',
    summary: "List an event's deliveries",
    description: 'Every attempt: the request sent and the response received.',
    answers: 'collection',
    definition: deliveryResource,
    parentType: 'Event',
    status: 200,
  },
  {
    method: 'get',
    path: `${EVENT}/deliveries/{delivery_id}`,
    operationId: 'getDelivery',
    summary: 'Read a delivery',
    description: 'One attempt of one event.',
    answers: 'single',
    definition: deliveryResource,
    parentType: 'Event',
    status: 200,
  },
];
