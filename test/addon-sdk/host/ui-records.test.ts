import { describe, expect, it } from 'vitest';
import { RejectedRecord, createRecordValidator } from '#sdk/host/ui-records.ts';

const button = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 1,
  element: 'ui-button',
  properties: { variant: 'primary' },
  eventListeners: { press: { $fn: 7 } },
  children: [{ id: `${id}t`, type: 3, data: 'Send' }],
  ...extra,
});

describe('createRecordValidator()', () => {
  it('passes allow-listed elements through and turns function references into callbacks that post plain data', () => {
    const calls: Array<[number, unknown[]]> = [];
    const validate = createRecordValidator((fn, args) => calls.push([fn, args]));
    const [record] = validate([[0, '~', button('1'), 0]]) as any[];
    expect(record[2]).toMatchObject({
      id: '1',
      element: 'ui-button',
      properties: { variant: 'primary' },
      attributes: {},
      children: [{ id: '1t', type: 3, data: 'Send' }],
    });
    record[2].eventListeners.press('ok', new Date(0), { nested: true }, true);
    expect(calls).toEqual([[7, ['ok', true]]]);
  });

  it('checks later property and listener updates against the element they target', () => {
    const validate = createRecordValidator(() => {});
    validate([[0, '~', button('1'), 0]]);
    expect(validate([[3, '1', 'disabled', true, 1]])).toEqual([[3, '1', 'disabled', true, 1]]);
    expect(() => validate([[3, '1', 'disabled', 'yes', 1]])).toThrow(
      new RejectedRecord('property not allowed: disabled'),
    );
    expect(() => validate([[3, '1', 'click', { $fn: 1 }, 3]])).toThrow(new RejectedRecord('event not allowed: click'));
    expect(() => validate([[3, '1', 'class', 'x', 2]])).toThrow(new RejectedRecord('attributes are not allowed'));
    expect(() => validate([[3, 'nope', 'disabled', true, 1]])).toThrow(
      new RejectedRecord('update of an unknown element'),
    );
  });

  it.each([
    ['a script element', { id: 'x', type: 1, element: 'script', children: [] }, 'element not allowed: script'],
    [
      'a javascript: link',
      { id: 'x', type: 1, element: 'ui-link', properties: { href: 'javascript:alert(1)' }, children: [] },
      'property not allowed: href',
    ],
    [
      'an image of an undeclared origin',
      { id: 'x', type: 1, element: 'ui-image', properties: { src: 'http://a.example/i.png' }, children: [] },
      'origin not declared: src',
    ],
    [
      'a data: image',
      { id: 'x', type: 1, element: 'ui-image', properties: { src: 'data:image/png;base64,AAAA' }, children: [] },
      'property not allowed: src',
    ],
    [
      'innerHTML',
      { id: 'x', type: 1, element: 'ui-text', properties: { innerHTML: '<b>x</b>' }, children: [] },
      'property not allowed: innerHTML',
    ],
    [
      'a tone outside the enum',
      { id: 'x', type: 1, element: 'ui-banner', properties: { tone: 'evil' }, children: [] },
      'property not allowed: tone',
    ],
    [
      'a listener that is not a reference',
      button('x', { eventListeners: { press: 'alert(1)' } }),
      'event listener is not a function reference',
    ],
    [
      'a nested forbidden child',
      { id: 'x', type: 1, element: 'ui-stack', children: [{ id: 'y', type: 1, element: 'iframe', children: [] }] },
      'element not allowed: iframe',
    ],
  ])('rejects the batch for %s [allow-list]', (_name, node, reason) => {
    const validate = createRecordValidator(() => {});
    expect(() => validate([[0, '~', node, 0]])).toThrow(new RejectedRecord(reason));
  });

  it('accepts images and links on the declared origins only, on insert and on update [ui_origins]', () => {
    const validate = createRecordValidator(() => {}, ['https://cdn.example', 'http://localhost:4100']);
    const image = (id: string, src: string) => ({
      id,
      type: 1,
      element: 'ui-image',
      properties: { src, alt: 'a' },
      children: [],
    });
    const link = (id: string, href: string) => ({
      id,
      type: 1,
      element: 'ui-link',
      properties: { href },
      children: [],
    });
    expect(() => validate([[0, '~', image('i', 'https://cdn.example/a.png?x=1'), 0]])).not.toThrow();
    expect(() => validate([[0, '~', link('l', 'https://cdn.example/page'), 1]])).not.toThrow();
    expect(() => validate([[0, '~', image('d', 'http://localhost:4100/dev.png'), 2]])).not.toThrow();
    const refused: [unknown, string][] = [
      [image('x', 'https://anywhere.example/p.png?data=secret'), 'origin not declared: src'],
      [image('x', 'https://cdn.example.evil/p.png'), 'origin not declared: src'],
      [image('x', 'https://cdn.example:8443/p.png'), 'origin not declared: src'],
      [image('x', 'http://cdn.example/p.png'), 'origin not declared: src'],
      [image('x', 'https://localhost:4100/p.png'), 'origin not declared: src'],
      [link('x', 'https://anywhere.example/?data=secret'), 'origin not declared: href'],
      [image('x', 'blob:https://cdn.example/0c6d'), 'property not allowed: src'],
    ];
    for (const [node, reason] of refused)
      expect(() => validate([[0, '~', node, 3]])).toThrow(new RejectedRecord(reason));
    expect(validate([[3, 'i', 'src', 'https://cdn.example/b.png', 1]])).toEqual([
      [3, 'i', 'src', 'https://cdn.example/b.png', 1],
    ]);
    expect(() => validate([[3, 'i', 'src', 'https://anywhere.example/p.png?data=secret', 1]])).toThrow(
      new RejectedRecord('origin not declared: src'),
    );
    expect(() => validate([[3, 'l', 'href', 'https://anywhere.example/', 1]])).toThrow(
      new RejectedRecord('origin not declared: href'),
    );
  });

  it('accepts no image or link URL when no origin is declared [default]', () => {
    const validate = createRecordValidator(() => {});
    expect(() =>
      validate([
        [
          0,
          '~',
          {
            id: 'i',
            type: 1,
            element: 'ui-image',
            properties: { src: 'https://cdn.example/a.png', alt: 'a' },
            children: [],
          },
          0,
        ],
      ]),
    ).toThrow(new RejectedRecord('origin not declared: src'));
    expect(
      validate([[0, '~', { id: 'l', type: 1, element: 'ui-link', properties: {}, children: [] }, 0]]),
    ).toHaveLength(1);
  });
});
