/**
 * Webhooks: the outbox of events recorded in the transactions of People writes, the delivery worker, signatures,
 * and the `/webhooks/v2` API. See README.md.
 */
export { AVAILABLE_EVENTS, isEventName, type EventName } from './event-names.ts';
export { recordEvent, WEBHOOK_EVENTS_CHANNEL, type RecordedEvent } from './record-event.ts';
export { recordLifecycleEvent, type LifecycleEventInput } from './record-lifecycle-event.ts';
export { renderPayload } from './render-payload.ts';
export {
  AUTHENTICITY_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  authenticitySignature,
  signDelivery,
  standardSignature,
} from './sign-delivery.ts';
export { generateSecret } from './subscription-secret.ts';
export { startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from './delivery-worker.ts';
export { retryDelayMs, MAX_RETRIES, FIRST_RETRY_MS } from './retry-schedule.ts';
export { DELIVERY_URL_RULE, parseDeliveryUrl } from './delivery-url.ts';
export {
  createSubscription,
  deleteSubscription,
  findSubscription,
  listSubscriptions,
  rotateSubscriptionSecret,
  setSubscriptionActive,
  type SubscriptionOwner,
  type SubscriptionRow,
} from './subscription-store.ts';
export { listDeliveries, listEvents, type DeliveryRecord, type EventSummary } from './event-store/index.ts';
export { ignoreEvent, redeliverEvent } from './event-actions.ts';
export { sendTestEvent, testEventPayload, type TestEventSubscription } from './send-test-event.ts';
export { EVENT_STATUSES } from './api/event-resource.ts';
export { webhooksRouter, type WebhooksApiDeps } from './api/webhooks-router.ts';
export { WEBHOOKS_DOCUMENT_LINK, webhooksOpenApiRouter } from './api/webhooks-openapi-router.ts';
export { WEBHOOKS_PREFIX } from './api/webhooks-openapi.ts';
