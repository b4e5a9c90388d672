/**
 * The JSON body of a webhook delivery, as the platform the host models sends it: a JSON:API document with one
 * `EventDelivery` whose id is the event's uuid (the same on every attempt: receivers deduplicate by it), its name,
 * the attempt number and the payload as a string. The host's delivery worker and the testing kit's
 * `sendTestWebhook` both build it here.
 */

/** What the body says of one attempt. */
export interface DeliveryBodyInput {
  uuid: string;
  name: string;
  attempt: number;
  /** The event's payload, already a string (a JSON document). */
  payload: string;
  organizationId: string;
}

/** The raw body sent (and signed). */
export function deliveryBody(input: DeliveryBodyInput): string {
  return JSON.stringify({
    data: [
      {
        id: input.uuid,
        type: 'EventDelivery',
        attributes: { name: input.name, attempt: input.attempt, payload: input.payload },
        relationships: { organization: { data: { type: 'Organization', id: input.organizationId } } },
      },
    ],
  });
}
