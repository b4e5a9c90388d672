import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOpenedSecrets } from '#host/crypto/opened-secrets.ts';
import { createSecretBox, SecretBoxError, type SecretBox } from '#host/crypto/secret-box.ts';

/** A box that counts its opens. */
function countingBox(): { box: SecretBox; opens: () => number } {
  const inner = createSecretBox([{ id: 'k1', key: randomBytes(32).toString('base64') }]);
  let opens = 0;
  return {
    box: {
      seal: (plaintext, aad) => inner.seal(plaintext, aad),
      open: (sealed, aad) => {
        opens += 1;
        return inner.open(sealed, aad);
      },
      isStale: (sealed) => inner.isStale(sealed),
    },
    opens: () => opens,
  };
}

describe('createOpenedSecrets()', () => {
  it('opens a sealed value once per slot and answers later reads from memory', () => {
    const { box, opens } = countingBox();
    const sealed = box.seal('token-1', 'row:1:access');
    const opened = createOpenedSecrets(box);
    expect([opened.open(sealed, 'row:1:access'), opened.open(sealed, 'row:1:access')]).toEqual(['token-1', 'token-1']);
    expect(opens()).toBe(1);
  });

  it('knows what it sealed without opening it', () => {
    const { box, opens } = countingBox();
    const opened = createOpenedSecrets(box);
    const sealed = opened.seal('token-2', 'row:1:access');
    expect(opened.open(sealed, 'row:1:access')).toBe('token-2');
    expect(opens()).toBe(0);
  });

  it('opens a new ciphertext of the slot (a token written by another process) and forgets the old one', () => {
    const { box, opens } = countingBox();
    const opened = createOpenedSecrets(box);
    const first = opened.seal('old', 'row:1:access');
    const second = box.seal('new', 'row:1:access');
    expect(opened.open(second, 'row:1:access')).toBe('new');
    expect(opened.open(first, 'row:1:access')).toBe('old');
    expect(opens()).toBe(2);
  });

  it('never opens a value copied into another slot [AAD binding]', () => {
    const { box } = countingBox();
    const opened = createOpenedSecrets(box);
    const sealed = opened.seal('token-3', 'row:1:access');
    expect(opened.open(sealed, 'row:1:access')).toBe('token-3');
    expect(() => opened.open(sealed, 'row:2:access')).toThrow(SecretBoxError);
  });

  it('keeps at most maxEntries slots, the least recently used going first', () => {
    const { box, opens } = countingBox();
    const opened = createOpenedSecrets(box, 2);
    const a = opened.seal('a', 'slot:a');
    const b = opened.seal('b', 'slot:b');
    opened.open(a, 'slot:a');
    opened.seal('c', 'slot:c');
    expect([opened.open(a, 'slot:a'), opens()]).toEqual(['a', 0]);
    expect([opened.open(b, 'slot:b'), opens()]).toEqual(['b', 1]);
  });
});
