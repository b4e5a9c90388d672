/** Delivery: one attempt to send an event — the request sent and the response received. */
import type { ResourceDefinition } from '../../jsonapi/resource.ts';

/** The resource definition. */
export const deliveryResource: ResourceDefinition = {
  type: 'Delivery',
  description: 'One attempt to deliver an event: the request sent and the response received (or why none came).',
  attributes: {
    attempt: { type: 'integer' },
    request_url: { type: 'string' },
    request_headers: { type: 'object', description: 'The headers sent, signatures included.' },
    request_body: { type: 'string' },
    response_status: { type: 'integer', nullable: true },
    response_headers: { type: 'object', nullable: true },
    response_body: { type: 'string', nullable: true, description: 'The first 4 KiB of the response body.' },
    response_truncated: { type: 'boolean' },
    error: {
      type: 'string',
      nullable: true,
      enum: ['timeout', 'unreachable', 'refused_address'],
      description: 'Why no response came.',
    },
    started_at: { type: 'date_time' },
    duration_ms: { type: 'integer' },
  },
  fields: [
    'attempt',
    'request_url',
    'request_headers',
    'request_body',
    'response_status',
    'response_headers',
    'response_body',
    'response_truncated',
    'error',
    'started_at',
    'duration_ms',
    'event',
  ],
  relationships: { event: { type: 'Event', id: (row) => row.event_id as string } },
  links: (row, base) => ({
    self: `${base}/webhooks/v2/webhook_subscriptions/${String(row.subscription_id)}/events/${String(row.event_id)}/deliveries/${String(row.id)}`,
  }),
  defaultOrder: 'd.attempt ASC',
};
