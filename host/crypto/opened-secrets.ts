/**
 * Recently opened sealed values, one per slot (the AAD a value is bound to: its row and column), so a row that
 * is read on every proxied call has its tokens decrypted once per token, not once per call (decryption was a
 * measurable share of a proxied call: bench P1).
 * A hit needs the very ciphertext that was opened (or sealed) for that slot: a token written anew — by this
 * process or any other — has a new ciphertext (a fresh IV), so it misses and is opened, and then replaces the
 * slot's entry; the old plaintext leaves memory with it. Bounded: the least recently used slot goes first.
 */
import type { SecretBox } from './secret-box.ts';

/** A SecretBox's `open`, remembered per slot; `seal` primes the slot with what it sealed. */
export interface OpenedSecrets {
  open(sealed: string, aad: string): string;
  seal(plaintext: string, aad: string): string;
}

/** Slots kept by default: one host's active authorizations × their token columns. */
export const OPENED_SECRETS_MAX = 10_000;

export function createOpenedSecrets(box: SecretBox, maxEntries = OPENED_SECRETS_MAX): OpenedSecrets {
  const slots = new Map<string, { sealed: string; plaintext: string }>();
  const keep = (aad: string, sealed: string, plaintext: string) => {
    slots.delete(aad);
    slots.set(aad, { sealed, plaintext });
    if (slots.size > maxEntries) slots.delete(slots.keys().next().value!);
  };
  return {
    open(sealed, aad) {
      const entry = slots.get(aad);
      if (entry?.sealed === sealed) {
        slots.delete(aad);
        slots.set(aad, entry);
        return entry.plaintext;
      }
      const plaintext = box.open(sealed, aad);
      keep(aad, sealed, plaintext);
      return plaintext;
    },
    seal(plaintext, aad) {
      const sealed = box.seal(plaintext, aad);
      keep(aad, sealed, plaintext);
      return sealed;
    },
  };
}
