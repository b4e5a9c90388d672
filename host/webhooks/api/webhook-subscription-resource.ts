/** WebhookSubscription: one event name delivered to one URL, owned by a person (or an application acting for one). */
import type { PayloadShape } from '../../jsonapi/payload.ts';
import type { ResourceDefinition } from '../../jsonapi/resource.ts';
import { AVAILABLE_EVENTS } from '../event-names.ts';

/** The resource definition (the row's secret is opened before rendering). */
export const webhookSubscriptionResource: ResourceDefinition = {
  type: 'WebhookSubscription',
  description:
    'A subscription to one event name, delivered to one URL. Only the person who made it (or an application acting ' +
    'for them) sees it; deliveries carry only what that person may see at delivery time.',
  attributes: {
    name: { type: 'string', description: 'The event name (see AvailableEvent).', enum: AVAILABLE_EVENTS },
    url: { type: 'string', description: 'Where deliveries are POSTed.' },
    active: { type: 'boolean', description: '410 Gone or the last failed retry makes it false.' },
    authenticity_secret: {
      type: 'string',
      description: 'Keys X-PCO-Webhooks-Authenticity and webhook-signature (`whsec_<base64>`).',
    },
    application_id: { type: 'primary_key', nullable: true, description: 'The OAuth application that made it.' },
    created_at: { type: 'date_time' },
    updated_at: { type: 'date_time' },
  },
  fields: ['name', 'url', 'active', 'authenticity_secret', 'application_id', 'created_at', 'updated_at'],
  links: (row, base) => ({ self: `${base}/webhooks/v2/webhook_subscriptions/${String(row.id)}` }),
  order: { created_at: 's.created_at' },
  defaultOrder: 's.created_at ASC',
  where: { application_id: { type: 'primary_key', column: 's.application_id' } },
  canQueryBy: ['application_id'],
};

/** A create: name, url, active. */
export const subscriptionCreatePayload: PayloadShape = {
  type: 'WebhookSubscription',
  assignable: {
    name: { type: 'string', enum: AVAILABLE_EVENTS },
    url: { type: 'string' },
    active: { type: 'boolean' },
  },
  readOnly: ['id', 'authenticity_secret', 'application_id', 'created_at', 'updated_at'],
};

/** An update: only active. */
export const subscriptionUpdatePayload: PayloadShape = {
  type: 'WebhookSubscription',
  assignable: { active: { type: 'boolean' } },
  readOnly: ['id', 'name', 'url', 'authenticity_secret', 'application_id', 'created_at', 'updated_at'],
};
