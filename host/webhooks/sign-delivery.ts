/**
 * The signature headers of a delivery, over the raw body:
 * - `X-PCO-Webhooks-Authenticity`: hex HMAC-SHA256 of the body keyed with the authenticity secret as it is written
 *   (its UTF-8 bytes), as the platform we model signs;
 * - Standard Webhooks: `webhook-id` (the event's uuid, the same on every attempt), `webhook-timestamp` (Unix seconds
 *   of this attempt) and `webhook-signature`, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the
 *   secret's base64 bytes — one entry per signing secret, so during a rotation's grace window a receiver holding
 *   either secret verifies.
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
import { createHmac } from 'node:crypto';
import { standardKey } from './subscription-secret.ts';

/** The header names, declared once for the worker, the integrator template and the tests. */
export const AUTHENTICITY_HEADER = 'X-PCO-Webhooks-Authenticity';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** What a signature covers. */
export interface SignInput {
  /** The event's uuid. */
  id: string;
  /** Unix seconds of the attempt. */
  timestamp: number;
  body: string;
  /** The current secret first, then the previous one while its grace window lasts. */
  secrets: readonly string[];
}

/** Hex HMAC-SHA256 of the body keyed with the secret's UTF-8 bytes (`X-PCO-Webhooks-Authenticity`). */
export function authenticitySignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The `webhook-signature` entry of one secret: `v1,<base64>`. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
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
      input.secrets.map((s) => standardSignature(s, input.id, input.timestamp, input.body)).join(' '),
    ],
  ];
}
