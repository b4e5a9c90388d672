/**
 * The worker's small DOM (addon-sdk/worker/dom/) against the records @remote-dom/polyfill sent before it: the
 * expected batches below are what the polyfill produced for this very scenario (same ids, same order), so the
 * host sees no difference. Runs in Node: the SDK's UI module installs the small DOM when it is imported.
 */
import { h, render, type ComponentChildren } from 'preact';
import { beforeAll, describe, expect, it } from 'vitest';

type Ui = typeof import('#sdk/worker/ui.ts');
let ui: Ui;
let connectRoot: typeof import('#sdk/worker/dom/remote-sync.ts').connectRoot;
let document: { createElement(name: string): Element };

beforeAll(async () => {
  // Node has no MutationObserver, and Node imports all of @remote-dom/core/elements, whose RemoteMutationObserver
  // extends it; an add-on bundle leaves that module out (it is unused), and a worker has none either.
  (globalThis as { MutationObserver?: unknown }).MutationObserver ??= class {};
  ui = await import('#sdk/worker/ui.ts');
  ({ connectRoot } = await import('#sdk/worker/dom/remote-sync.ts'));
  document = (globalThis as unknown as { document: typeof document }).document;
});

/** A root connected to a recording connection; functions in records become `{$fn: n}` (n: first seen order). */
function connectedRoot() {
  const functions: Array<(...args: unknown[]) => unknown> = [];
  const encode = (value: unknown): unknown => {
    if (typeof value === 'function') {
      const known = functions.indexOf(value as (typeof functions)[number]);
      return { $fn: known >= 0 ? known : functions.push(value as (typeof functions)[number]) - 1 };
    }
    if (Array.isArray(value)) return value.map(encode);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
    return value;
  };
  const batches: unknown[] = [];
  const root = document.createElement('remote-root') as unknown as Parameters<typeof connectRoot>[0];
  connectRoot(root, { mutate: (records) => batches.push(encode(records)), call: () => undefined });
  return { root: root as unknown as Element, batches, functions };
}

const item = (id: number, label: string, checked: boolean, fn: number) => ({
  id: String(id),
  type: 1,
  element: 'ui-list-item',
  children: [
    {
      id: String(id + 1),
      type: 1,
      element: 'ui-checkbox',
      properties: { checked, disabled: false, label },
      eventListeners: { change: { $fn: fn } },
      children: [],
    },
  ],
});

describe('the worker small DOM', () => {
  it('sends the mutation records the polyfill sent: the tree, then property, listener, text and keyed-list changes', () => {
    const { Stack, Button, TextField, Image, List, ListItem, Checkbox } = ui;
    const { root, batches, functions } = connectedRoot();
    const done: string[] = [];
    const view = (step: 1 | 2, people: string[]): ComponentChildren =>
      h(
        Stack,
        { gap: 'small' },
        h(
          Button,
          {
            variant: step === 1 ? 'primary' : 'secondary',
            disabled: step > 1,
            onPress: step === 1 ? () => done.push('press') : undefined,
          },
          `Send ${step}`,
        ),
        h(TextField, { label: 'Message', onInput: (value) => done.push(`input ${value}`) }),
        h(Image, { src: 'https://cdn.example/a.png', alt: 'a', width: step === 1 ? 120 : undefined }),
        h(
          List,
          null,
          people.map((p) =>
            h(
              ListItem,
              { key: p },
              h(Checkbox, { label: p, checked: p !== 'b', onChange: (checked) => done.push(`${p} ${checked}`) }),
            ),
          ),
        ),
      );

    render(view(1, ['a', 'b', 'c']), root);
    expect(batches.splice(0)).toEqual([
      [
        [
          0,
          '~',
          {
            id: '0',
            type: 1,
            element: 'ui-stack',
            properties: { gap: 'small' },
            children: [
              {
                id: '1',
                type: 1,
                element: 'ui-button',
                properties: { disabled: false, variant: 'primary' },
                eventListeners: { press: { $fn: 0 } },
                children: [{ id: '2', type: 3, data: 'Send 1' }],
              },
              {
                id: '3',
                type: 1,
                element: 'ui-text-field',
                properties: { disabled: false, label: 'Message' },
                eventListeners: { input: { $fn: 1 } },
                children: [],
              },
              {
                id: '4',
                type: 1,
                element: 'ui-image',
                // width is set as an attribute by preact and converted to the number property
                properties: { src: 'https://cdn.example/a.png', alt: 'a', width: 120 },
                children: [],
              },
              {
                id: '5',
                type: 1,
                element: 'ui-list',
                properties: { ordered: false },
                children: [item(6, 'a', true, 2), item(8, 'b', false, 3), item(10, 'c', true, 4)],
              },
            ],
          },
          0,
        ],
      ],
    ]);

    // The host calls the listeners with plain values; the components' callbacks get them.
    functions[0]!();
    functions[1]!('hi');
    functions[2]!(false);
    expect(done).toEqual(['press', 'input hi', 'a false']);

    render(view(2, ['c', 'a', 'd']), root);
    expect(batches.splice(0)).toEqual([
      [[3, '1', 'variant', 'secondary', 1]],
      [[3, '1', 'disabled', true, 1]],
      [[3, '1', 'press', undefined, 3]],
      [[2, '2', 'Send 2']],
      [[3, '4', 'width', undefined, 1]],
      [[1, '5', 1]],
      [[1, '5', 1]],
      [[0, '5', item(10, 'c', true, 4), 0]],
      [[0, '5', item(12, 'd', true, 5), 2]],
    ]);
  });

  it('sends an element outside the allow-list with its attributes, as remote-dom does (the host refuses it)', () => {
    const { root, batches } = connectedRoot();
    render(h('div', { id: 'x', 'data-step': '1' }, 'plain'), root);
    expect(batches).toEqual([
      [
        [
          0,
          '~',
          {
            id: expect.any(String),
            type: 1,
            element: 'div',
            attributes: { id: 'x', 'data-step': '1' },
            children: [{ id: expect.any(String), type: 3, data: 'plain' }],
          },
          0,
        ],
      ],
    ]);
  });

  it('refuses innerHTML (dangerouslySetInnerHTML) with a clear error instead of parsing HTML', () => {
    const { root, batches } = connectedRoot();
    expect(() => render(h('ui-text', { dangerouslySetInnerHTML: { __html: '<b>x</b>' } }), root)).toThrow(
      'addon-kit: add-on UI cannot set innerHTML (dangerouslySetInnerHTML); render components',
    );
    expect(batches).toEqual([]);
  });

  it('moves a node already in the tree: removed where it was, then inserted where it goes', () => {
    const { root, batches } = connectedRoot();
    const a = document.createElement('ui-text');
    const b = document.createElement('ui-text');
    root.appendChild(a);
    root.appendChild(b);
    batches.splice(0);
    root.insertBefore(b, a);
    expect(batches).toEqual([
      [[1, '~', 1]],
      [
        [
          0,
          '~',
          { id: expect.any(String), type: 1, element: 'ui-text', properties: { strong: false }, children: [] },
          0,
        ],
      ],
    ]);
    expect([...root.childNodes]).toEqual([b, a]);
  });
});
