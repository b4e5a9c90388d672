/** Delivery: one attempt to send an event — the request sent and the response received. */
import type { ResourceDefinition } from '../../jsonapi/resource.ts';
import { isoTimestampSql } from '../../jsonapi/sql.ts';

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

/** The SELECT list of a delivery (alias `d`, its event `e`); headers as sent, one object. */
export const DELIVERY_SELECT = `d.id::text AS id, d.attempt, d.request_url,
  (SELECT COALESCE(jsonb_object_agg(h->>0, h->>1), '{}'::jsonb) FROM jsonb_array_elements(d.request_headers) h) AS request_headers,
  d.request_body, d.response_status, d.response_headers, d.response_body, d.response_truncated, d.error,
  ${isoTimestampSql('d.started_at')} AS started_at, d.duration_ms, d.event_id::text AS event_id,
  e.subscription_id::text AS subscription_id`;
