/** Bearer-style secrets (tokens, personal-access-token secrets) are stored only as SHA-256 digests. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored digest in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new random secret: `bytes` of entropy, hex-encoded. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}
