/**
 * Add-on lifecycle events for integrators: when a person completes an add-on's handshake, revokes it, is excluded
 * by the organization's access_mode, or must authorize again, the host tells the integrator at the environment's
 * `webhook_url`, so it can drop tokens it no longer needs. Each is recorded in the transaction of the state change
 * it reports (a rolled-back change has no event) through the webhooks outbox (host/webhooks), which signs, retries
 * and keeps it like any webhook event. The signing secret is the integrator's OAuth `client_secret` of the live
 * version: the secret host and integrator already share (see README.md).
 */
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import { recordLifecycleEvent } from '../../webhooks/index.ts';
import { integratorClientSecret, type Installation } from '../registry/index.ts';

/** The lifecycle events, by what happened to the person's authorization. */
export const ADDON_LIFECYCLE_EVENTS = [
  'addon.authorization.completed',
  'addon.authorization.revoked',
  'addon.authorization.excluded',
  'addon.authorization.reauthorization_required',
] as const;

/** One of {@link ADDON_LIFECYCLE_EVENTS}. */
export type AddonLifecycleEvent = (typeof ADDON_LIFECYCLE_EVENTS)[number];

/** The event's payload (the delivery's `payload` attribute, a JSON string). */
export interface AddonLifecyclePayload {
  event: AddonLifecycleEvent;
  addon_id: string;
  oauth_application_id: string;
  installation_id: string;
  environment: string;
  organization_id: string;
  /** The host's person id. */
  person_id: string;
  /** The person as the integrator knows them: `user_id` (or `sub`) of its token response at the handshake; null if it sent none. */
  integrator_user_id: string | null;
  /** The client the host is at the integrator (`integrator_oauth.client_id`): whose tokens to drop. */
  integrator_client_id: string;
  occurred_at: string;
}

/** What happened, to whom. */
export interface LifecycleChange {
  name: AddonLifecycleEvent;
  installation: Installation;
  personId: string;
  integratorSubject: string | null;
  occurredAt: Date;
}

/** The payload of a change. */
export function lifecyclePayload(change: LifecycleChange): AddonLifecyclePayload {
  const { installation } = change;
  return {
    event: change.name,
    addon_id: installation.addonId,
    oauth_application_id: installation.oauthApplicationId,
    installation_id: installation.id,
    environment: installation.environment,
    organization_id: installation.organizationId,
    person_id: change.personId,
    integrator_user_id: change.integratorSubject,
    integrator_client_id: installation.integratorOAuth.client_id,
    occurred_at: change.occurredAt.toISOString(),
  };
}

/**
 * Records the event in the caller's transaction `tx`; nothing when the installation's environment has no
 * `webhook_url`. Returns the event's uuid (the deliveries' `webhook-id`), or undefined.
 */
export async function recordAddonLifecycleEvent(
  tx: Queryable,
  box: SecretBox,
  change: LifecycleChange,
): Promise<string | undefined> {
  const url = change.installation.webhookUrl;
  if (!url) return undefined;
  const secret = await integratorClientSecret(tx, box, change.installation.versionId);
  return recordLifecycleEvent(tx, box, {
    organizationId: change.installation.organizationId,
    name: change.name,
    url,
    secret,
    payload: lifecyclePayload(change),
  });
}

/** The person's id as the integrator knows it, from its token response: `user_id`, else `sub` (strings or numbers). */
export function integratorSubjectOf(response: Record<string, unknown>): string | null {
  for (const key of ['user_id', 'sub']) {
    const value = response[key];
    if (typeof value === 'string' && value !== '' && value.length <= 255) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  }
  return null;
}
