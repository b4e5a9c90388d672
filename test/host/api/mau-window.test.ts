import { describe, expect, it } from 'vitest';
import { mauWindow, monthIndex } from '#host/api/mau-window.ts';

describe('mauWindow()', () => {
  it('spans the current month and the 23 before it [November 2026]', () => {
    expect(mauWindow(new Date('2026-11-30T23:59:59Z'))).toEqual({
      first: monthIndex(2024, 12),
      last: monthIndex(2026, 11),
    });
  });

  it('reads the month in UTC [a minute after midnight UTC on the 1st]', () => {
    expect(mauWindow(new Date('2026-12-01T00:01:00Z'))).toEqual({
      first: monthIndex(2025, 1),
      last: monthIndex(2026, 12),
    });
  });

  it('never starts before February 2019 [June 2019, February 2021]', () => {
    expect(mauWindow(new Date('2019-06-10T00:00:00Z'))).toEqual({
      first: monthIndex(2019, 2),
      last: monthIndex(2019, 6),
    });
    expect(mauWindow(new Date('2021-01-15T00:00:00Z')).first).toBe(monthIndex(2019, 2));
    expect(mauWindow(new Date('2021-02-15T00:00:00Z')).first).toBe(monthIndex(2019, 3));
  });

  it('is empty before history starts [January 2019]', () => {
    const { first, last } = mauWindow(new Date('2019-01-20T00:00:00Z'));
    expect(first).toBeGreaterThan(last);
  });
});
