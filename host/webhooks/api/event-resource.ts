/** Event: one change announced to one subscription, with its delivery status. */
import type { ResourceDefinition } from '../../jsonapi/resource.ts';

/** Every status an event takes. */
export const EVENT_STATUSES = [
  'pending',
  'delivered',
  'failed',
  'skipped',
  'duplicated',
  'ignored_failed',
  'ignored_skipped',
  'ignored_duplicated',
] as const;

/** The resource definition. */
export const eventResource: ResourceDefinition = {
  type: 'Event',
  description: 'One change announced to one subscription; its deliveries are the attempts to send it.',
  attributes: {
    uuid: { type: 'string', description: 'The EventDelivery id and `webhook-id` of every attempt.' },
    name: { type: 'string' },
    payload: { type: 'string', description: 'The resource as the API renders it, as a JSON string.' },
    status: { type: 'string', enum: EVENT_STATUSES },
    attempts: { type: 'integer', description: 'Attempts made so far.' },
    next_attempt_at: { type: 'date_time', nullable: true, description: 'When a pending event is tried next.' },
    created_at: { type: 'date_time' },
    updated_at: { type: 'date_time' },
  },
  fields: [
    'uuid',
    'name',
    'payload',
    'status',
    'attempts',
    'next_attempt_at',
    'created_at',
    'updated_at',
    'subscription',
    'person',
  ],
  relationships: {
    subscription: { type: 'WebhookSubscription', id: (row) => row.subscription_id as string },
    person: { type: 'Person', id: (row) => row.person_id as string },
  },
  links: (row, base) => ({
    self: `${base}/webhooks/v2/webhook_subscriptions/${String(row.subscription_id)}/events/${String(row.id)}`,
  }),
  order: { created_at: 'e.created_at' },
  defaultOrder: 'e.created_at ASC',
  where: {
    status: { type: 'string', column: 'e.status' },
    uuid: { type: 'string', column: 'e.uuid::text' },
  },
  canQueryBy: ['status', 'uuid'],
};
