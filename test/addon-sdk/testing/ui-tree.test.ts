import { describe, expect, it } from 'vitest';
import { COMPONENTS } from '#sdk/protocol/components.ts';
import { componentName, formatTree, queryByText, textOf, type UiNode } from '#sdk/testing/ui-tree.ts';

const node = (type: UiNode['type'], children: UiNode['children'] = [], props: UiNode['props'] = {}): UiNode => ({
  type,
  props,
  children,
});
const tree: UiNode[] = [
  node('Stack', [
    node('Text', ['Send']),
    node('Banner', [node('Text', ['Sent to ', '2', ' people'])], { tone: 'success' }),
    node('Button', ['Send'], { disabled: true }),
  ]),
];

describe('componentName()', () => {
  it('names every allow-listed element as the worker SDK exports it', () => {
    expect(Object.keys(COMPONENTS).map(componentName)).toEqual([
      'Heading',
      'Text',
      'Button',
      'TextField',
      'TextArea',
      'Select',
      'Checkbox',
      'List',
      'ListItem',
      'Link',
      'Image',
      'Stack',
      'Banner',
      'Spinner',
    ]);
  });
});

describe('textOf()', () => {
  it('joins the text of a node, a tree or a string', () => {
    expect([textOf(tree[0]!), textOf(tree), textOf('plain')]).toEqual([
      'SendSent to 2 peopleSend',
      'SendSent to 2 peopleSend',
      'plain',
    ]);
  });
});

describe('queryByText()', () => {
  it('finds the innermost component with exactly that text, the first in document order', () => {
    expect(queryByText(tree, 'Send')).toBe(tree[0]!.children[0]);
    expect(queryByText(tree, 'Sent to 2 people')).toBe((tree[0]!.children[1] as UiNode).children[0]);
  });

  it('matches a RegExp against the whole text [regexp]', () => {
    expect(queryByText(tree, /^Sent to \d+ people$/)).toBe((tree[0]!.children[1] as UiNode).children[0]);
  });

  it('returns undefined when no component has the text, even as part of a longer one [missing]', () => {
    expect([queryByText(tree, 'Sent'), queryByText([], 'Send')]).toEqual([undefined, undefined]);
  });
});

describe('formatTree()', () => {
  it('outlines components with their props and text, one per line', () => {
    expect(formatTree(tree)).toBe(
      [
        '<Stack>',
        '  <Text>',
        '    "Send"',
        '  <Banner tone="success">',
        '    <Text>',
        '      "Sent to "',
        '      "2"',
        '      " people"',
        '  <Button disabled=true>',
        '    "Send"',
      ].join('\n'),
    );
    expect(formatTree([])).toBe('(nothing rendered)');
  });
});
