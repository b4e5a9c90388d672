/**
 * A subscription's authenticity secret, written as Standard Webhooks writes secrets: `whsec_` and 24 random bytes
 * in base64. The same secret keys both signatures (sign-delivery.ts).
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#signature-scheme
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret. */
export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** The HMAC key of the Standard Webhooks signature: the bytes after `whsec_`. */
export { standardKey } from '@addon-kit/sdk/server';
