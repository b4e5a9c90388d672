/**
 * `sendTestWebhook`: POSTs one signed event to a receiver exactly as the host's delivery worker does — the same body
 * (`deliveryBody`) and the same signatures (`signDelivery`, both from addon-sdk/server) — so an integrator's webhook
 * receiver can be tested without a host: the lifecycle events of an add-on (signed with the integrator's OAuth client
 * secret, `raw` format) or a People webhook subscription's events (a `whsec_` secret).
 */
import { randomUUID } from 'node:crypto';
import { deliveryBody } from '../server/webhook-body.ts';
import { signDelivery, type SecretFormat } from '../server/webhook-signature.ts';

/** One test event. */
export interface TestWebhookOptions {
  /** The receiver, e.g. `http://localhost:4200/webhooks/addon-kit`. */
  url: string;
  /**
   * The signing secret: the add-on config's `integrator_oauth.client_secret` for lifecycle events, or a
   * subscription's `whsec_…` secret.
   */
  secret: string;
  /** The event's name, e.g. `addon.authorization.revoked`. */
  name: string;
  /** The payload: an object (sent as its JSON) or a string (sent as it is). */
  payload: unknown;
  /** Default: `whsec` for a secret starting with `whsec_`, else `raw` (its UTF-8 bytes key the Standard Webhooks HMAC). */
  format?: SecretFormat;
  /** The event id (`webhook-id`); default a new UUID. Send the same id twice to test idempotency. */
  id?: string;
  /** Unix seconds of the signature (`webhook-timestamp`); default now. Set one in the past to test replay refusal. */
  timestamp?: number;
  /** The delivery's attempt number; default 1. */
  attempt?: number;
  /** The organization the delivery names; default `"1"`. */
  organizationId?: string;
  /** Headers to add or replace (a forged signature, say). */
  headers?: Record<string, string>;
}

/** What was sent and what the receiver answered. */
export interface TestWebhookResult {
  id: string;
  /** The raw body sent (what was signed). */
  body: string;
  /** The request's headers, as sent. */
  headers: Record<string, string>;
  status: number;
  /** The receiver's answer, as text. */
  responseBody: string;
}

/** Sends one signed test event and returns the receiver's answer (never throws for a status; a network error throws). */
export async function sendTestWebhook(options: TestWebhookOptions): Promise<TestWebhookResult> {
  const id = options.id ?? randomUUID();
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const body = deliveryBody({
    uuid: id,
    name: options.name,
    attempt: options.attempt ?? 1,
    payload: typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload),
    organizationId: options.organizationId ?? '1',
  });
  const format = options.format ?? (options.secret.startsWith('whsec_') ? 'whsec' : 'raw');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'addon-kit test webhook',
    ...Object.fromEntries(signDelivery({ id, timestamp, body, secrets: [options.secret], format })),
    ...options.headers,
  };
  const response = await fetch(options.url, { method: 'POST', headers, body, redirect: 'manual' });
  return { id, body, headers, status: response.status, responseBody: await response.text() };
}
