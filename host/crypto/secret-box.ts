/**
 * AES-256-GCM for secrets the host must recover (integrator tokens, OAuth client secrets).
 * Format: `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id travels with the
 * ciphertext, so keys rotate: the first configured key encrypts, every configured key decrypts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const TAG_BYTES = 16;

export interface EncryptionKey {
  id: string;
  /** 32 bytes, base64. */
  key: string;
}

export class SecretBoxError extends Error {
  constructor(
    readonly code: 'unknown_key' | 'malformed' | 'tampered',
    message: string,
  ) {
    super(message);
  }
}

export interface SecretBox {
  /** Encrypts with the current key; `aad` binds the ciphertext to its context (e.g. a row id). */
  seal(plaintext: string, aad?: string): string;
  /** Decrypts with whichever configured key sealed it. */
  open(sealed: string, aad?: string): string;
  /** True when `sealed` was made with an older key and should be re-sealed. */
  isStale(sealed: string): boolean;
}

export function createSecretBox(keys: readonly EncryptionKey[]): SecretBox {
  if (keys.length === 0) throw new SecretBoxError('unknown_key', 'at least one encryption key is required');
  const byId = new Map(keys.map((k) => [k.id, Buffer.from(k.key, 'base64')]));
  const current = keys[0]!;
  return {
    seal(plaintext, aad = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', byId.get(current.id)!, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        current.id,
        iv.toString('base64url'),
        data.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed, aad = '') {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== 'v1') throw new SecretBoxError('malformed', 'not a sealed secret');
      const [, keyId, iv, data, tag] = parts as [string, string, string, string, string];
      const key = byId.get(keyId);
      if (!key) throw new SecretBoxError('unknown_key', `no configured key with id ${keyId}`);
      const authTag = Buffer.from(tag, 'base64url');
      // A shortened tag must never verify: without a fixed length Node accepts a 4-byte prefix.
      // @see NIST SP 800-38D §5.2.1.2 (tag length is fixed per key; we use 128 bits)
      if (authTag.length !== TAG_BYTES) throw new SecretBoxError('tampered', 'the sealed secret does not verify');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(authTag);
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('tampered', 'the sealed secret does not verify');
      }
    },
    isStale(sealed) {
      return sealed.split('.')[1] !== current.id;
    },
  };
}
