/**
 * The CSRF token comparison every cookie-authenticated POST (and every proxied add-on call) runs.
 */
import { describe, expect, it } from 'vitest';
import { tokensEqual } from '#host/auth/csrf.ts';

describe('tokensEqual()', () => {
  const token = 'k'.repeat(43);

  it('is true for the same token only [equal]', () => {
    expect(tokensEqual(token, `${'k'.repeat(42)}k`)).toBe(true);
    expect(tokensEqual(token, `${'k'.repeat(42)}j`)).toBe(false);
    expect(tokensEqual(`j${'k'.repeat(42)}`, token)).toBe(false);
  });

  it('is false for a shorter, longer or empty token, and for one equal only as UTF-16 length [length]', () => {
    expect(tokensEqual(token.slice(1), token)).toBe(false);
    expect(tokensEqual(`${token}k`, token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
    // 43 UTF-16 code units, more bytes: compared as bytes, never as a prefix.
    expect(tokensEqual(`${'k'.repeat(42)}é`, token)).toBe(false);
  });
});
