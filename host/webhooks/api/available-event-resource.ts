/** AvailableEvent: an event name a subscription may use (`GET /webhooks/v2/available_events`). */
import type { ResourceDefinition, Row } from '../../jsonapi/resource.ts';
import { AVAILABLE_EVENTS } from '../event-names.ts';

/** The resource definition. */
export const availableEventResource: ResourceDefinition = {
  type: 'AvailableEvent',
  description: 'An event name a webhook subscription may use: `{product}.v2.events.{resource}.{action}`.',
  attributes: {
    name: { type: 'string', description: 'The event name.' },
    product: { type: 'string', description: 'The product whose writes record it.' },
    resource: { type: 'string' },
    action: { type: 'string' },
    version: { type: 'string' },
  },
  fields: ['name', 'product', 'resource', 'action', 'version'],
  links: (row, base) => ({ self: `${base}/webhooks/v2/available_events/${String(row.id)}` }),
};

/** Every available event as a row (ids are their positions, stable as events are only ever appended). */
export const AVAILABLE_EVENT_ROWS: readonly Row[] = AVAILABLE_EVENTS.map((name, index) => {
  const [product, version, , resource, action] = name.split('.');
  return { id: String(index + 1), name, product, version, resource, action };
});
