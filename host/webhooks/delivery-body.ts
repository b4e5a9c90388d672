/**
 * The JSON body of a delivery, as the platform we model sends it: a JSON:API document with one `EventDelivery`
 * whose id is the event's uuid (the same on every attempt: receivers deduplicate by it), its name, the attempt
 * number and the payload — the resource as the API renders it — as a string.
 */

/** What the body says of one attempt. */
export interface DeliveryBodyInput {
  uuid: string;
  name: string;
  attempt: number;
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
