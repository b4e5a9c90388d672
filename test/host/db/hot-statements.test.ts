import { describe, expect, it } from 'vitest';
import { createHotStatements } from '#host/db/hot-statements.ts';

describe('createHotStatements()', () => {
  it('names a text from its third run on, always with the same name', () => {
    const hot = createHotStatements();
    const names = Array.from({ length: 5 }, () => hot.nameOf('SELECT 1'));
    expect(names).toEqual([undefined, undefined, 'addon_kit_1', 'addon_kit_1', 'addon_kit_1']);
  });

  it('gives every text its own name', () => {
    const hot = createHotStatements({ hotAfter: 1 });
    expect([hot.nameOf('SELECT 1'), hot.nameOf('SELECT 2'), hot.nameOf('SELECT 1')]).toEqual([
      'addon_kit_1',
      'addon_kit_2',
      'addon_kit_1',
    ]);
  });

  it('names no more than maxNamed texts; those named keep their names', () => {
    const hot = createHotStatements({ hotAfter: 1, maxNamed: 2 });
    expect(['a', 'b', 'c', 'a', 'c'].map((sql) => hot.nameOf(sql))).toEqual([
      'addon_kit_1',
      'addon_kit_2',
      undefined,
      'addon_kit_1',
      undefined,
    ]);
  });

  it('forgets the counts of the least recently seen texts past maxCounted', () => {
    const hot = createHotStatements({ hotAfter: 2, maxCounted: 2 });
    hot.nameOf('a');
    hot.nameOf('b');
    hot.nameOf('c'); // 'a' is forgotten
    expect([hot.nameOf('a'), hot.nameOf('c')]).toEqual([undefined, 'addon_kit_1']);
  });
});
