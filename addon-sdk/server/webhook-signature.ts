/**
 * The signature headers of a webhook delivery, over the raw body — the one definition the host's delivery worker
 * and the testing kit's `sendTestWebhook` both sign with:
 * - `X-PCO-Webhooks-Authenticity`: hex HMAC-SHA256 of the body keyed with the secret as it is written (its UTF-8
 *   bytes), as the platform the host models signs;
 * - Standard Webhooks: `webhook-id` (the event's id, the same on every attempt), `webhook-timestamp` (Unix seconds
 *   of this attempt) and `webhook-signature`, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` — one entry per
 *   signing secret, so during a rotation's grace window a receiver holding either secret verifies.
 *
 * The Standard Webhooks key of a secret depends on its format: `whsec` (a subscription's `whsec_<base64>` secret:
 * the bytes after the prefix, what `new Webhook(secret)` of the `standardwebhooks` package uses) or `raw` (an add-on
 * integrator's OAuth client secret, any text: its UTF-8 bytes, what `new Webhook(secret, { format: 'raw' })` uses).
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
import { createHmac } from 'node:crypto';

/** The header names, declared once for the host, the testing kit and the tests. */
export const AUTHENTICITY_HEADER = 'X-PCO-Webhooks-Authenticity';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** How a secret's text becomes the Standard Webhooks HMAC key. */
export type SecretFormat = 'whsec' | 'raw';

const PREFIX = 'whsec_';

/** The HMAC key of the Standard Webhooks signature of a secret. */
export function standardKey(secret: string, format: SecretFormat = 'whsec'): Buffer {
  if (format === 'raw') return Buffer.from(secret, 'utf8');
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** What a signature covers. */
export interface SignInput {
  /** The event's id (`webhook-id`). */
  id: string;
  /** Unix seconds of the attempt. */
  timestamp: number;
  body: string;
  /** The current secret first, then the previous one while its grace window lasts. */
  secrets: readonly string[];
  /** Default `whsec`. */
  format?: SecretFormat;
}

/** Hex HMAC-SHA256 of the body keyed with the secret's UTF-8 bytes (`X-PCO-Webhooks-Authenticity`). */
export function authenticitySignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The `webhook-signature` entry of one secret: `v1,<base64>`. */
export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
  format: SecretFormat = 'whsec',
): string {
  return `v1,${createHmac('sha256', standardKey(secret, format)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The signature headers of one attempt, in the order they are sent. */
export function signDelivery(input: SignInput): [string, string][] {
  const [current] = input.secrets;
  if (current === undefined) throw new Error('a delivery needs a signing secret');
  return [
    [AUTHENTICITY_HEADER, authenticitySignature(current, input.body)],
    [WEBHOOK_ID_HEADER, input.id],
    [WEBHOOK_TIMESTAMP_HEADER, String(input.timestamp)],
    [
      WEBHOOK_SIGNATURE_HEADER,
      input.secrets
        .map((s) => standardSignature(s, input.id, input.timestamp, input.body, input.format ?? 'whsec'))
        .join(' '),
    ],
  ];
}
