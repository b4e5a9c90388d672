/**
 * What one attempt sends and where: a claimed event's target (its subscription's, or a lifecycle event's own URL and
 * secret) and the signed request (the `EventDelivery` body, `X-PCO-Webhooks-Authenticity` and the Standard Webhooks
 * headers).
 */
import { deliveryBody } from './delivery-body.ts';
import type { ClaimedEvent } from './event-store/index.ts';
import { signDelivery } from './sign-delivery.ts';
import type { DeliveryTarget } from './subscription-store.ts';

/**
 * The target of an add-on lifecycle event (no subscription): its own URL and sealed secret; always active and
 * visible (the integrator is told about its own add-on, not shown People data).
 */
function lifecycleTarget(event: ClaimedEvent): DeliveryTarget | undefined {
  if (event.target_url === null || event.signing_secret === null) return undefined;
  return {
    id: event.id,
    url: event.target_url,
    active: true,
    visible: true,
    authenticity_secret: event.signing_secret,
    previous_secret: null,
  };
}

/** Where a claimed event goes: its subscription's target, or a lifecycle event's own. */
export function targetOf(event: ClaimedEvent): DeliveryTarget | undefined {
  return event.subscription_id === null ? lifecycleTarget(event) : (event.subscription_target ?? undefined);
}

/** The body of an attempt and its headers, signed with its target's opened secrets (the previous one too while it rotates). */
export function signedRequest(
  userAgent: string,
  secrets: string[],
  event: ClaimedEvent,
): { body: string; headers: [string, string][] } {
  const lifecycle = event.subscription_id === null;
  const body = deliveryBody({
    uuid: event.uuid,
    name: event.name,
    attempt: event.attempt,
    payload: event.payload,
    organizationId: event.organization_id,
  });
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', userAgent],
    ...signDelivery({
      id: event.uuid,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets,
      // A lifecycle event's secret is an integrator's OAuth client secret: its UTF-8 bytes key the HMAC.
      format: lifecycle ? 'raw' : 'whsec',
    }),
  ];
  return { body, headers };
}
