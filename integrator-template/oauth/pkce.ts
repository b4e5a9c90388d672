/** Proof Key for Code Exchange, S256 only. */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * code_verifier syntax: 43–128 unreserved characters.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.1
 */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A S256 code_challenge is the base64url SHA-256 of a verifier: always 43 characters. */
export const CODE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/**
 * True when BASE64URL(SHA256(verifier)) equals the stored challenge.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.6
 */
export function checkPkce(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
