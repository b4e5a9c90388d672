import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from '#host/crypto/secret-box.ts';

const key = (id: string) => ({ id, key: randomBytes(32).toString('base64') });
const k1 = key('k1');
const k2 = key('k2');

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof SecretBoxError ? error.code : `unexpected: ${String(error)}`;
  }
  return 'no error';
};

describe('createSecretBox()', () => {
  it('seals as v1.<keyId>.<iv>.<ciphertext>.<tag> and opens what it sealed', () => {
    const box = createSecretBox([k1]);
    const sealed = box.seal('refresh-token-value', 'row:1');
    expect(sealed).toMatch(/^v1\.k1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('refresh-token-value');
    expect(box.open(sealed, 'row:1')).toBe('refresh-token-value');
    expect(box.seal('same', 'row:1')).not.toBe(box.seal('same', 'row:1'));
  });

  it('refuses another context (AAD), a changed ciphertext and a shortened tag [tampered]', () => {
    const box = createSecretBox([k1]);
    const sealed = box.seal('secret', 'row:1');
    const [v, id, iv, data, tag] = sealed.split('.') as [string, string, string, string, string];
    expect(codeOf(() => box.open(sealed, 'row:2'))).toBe('tampered');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(codeOf(() => box.open([v, id, iv, flipped.toString('base64url'), tag].join('.'), 'row:1'))).toBe('tampered');
    const short = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(codeOf(() => box.open([v, id, iv, data, short].join('.'), 'row:1'))).toBe('tampered');
  });

  it('opens with any configured key and reports secrets sealed with an older one [rotation]', () => {
    const old = createSecretBox([k1]).seal('secret');
    const rotated = createSecretBox([k2, k1]);
    expect(rotated.open(old)).toBe('secret');
    expect(rotated.isStale(old)).toBe(true);
    expect(rotated.isStale(rotated.seal('secret'))).toBe(false);
    expect(codeOf(() => createSecretBox([k2]).open(old))).toBe('unknown_key');
  });

  it('refuses what is not a sealed secret [malformed]', () => {
    const box = createSecretBox([k1]);
    for (const value of ['', 'plain', 'v2.k1.a.b.c', 'v1.k1.a.b'])
      expect(codeOf(() => box.open(value))).toBe('malformed');
  });
});
