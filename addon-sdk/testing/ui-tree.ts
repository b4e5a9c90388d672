/**
 * The add-on's rendered UI as plain JSON for assertions: the allow-listed components (named as the worker
 * SDK exports them: `Button`, `TextField`, …) with their validated props and their text.
 */
import type { ComponentName } from '../protocol/components.ts';

/** A component name as add-on code imports it (`ui-text-field` → `TextField`). */
export type UiComponent = {
  [K in ComponentName]: K extends `ui-${infer Rest}` ? PascalCase<Rest> : never;
}[ComponentName];
type PascalCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalCase<Tail>}`
  : Capitalize<S>;

/** One rendered component: its props as the host received them (event handlers left out) and its children. */
export interface UiNode {
  type: UiComponent;
  props: Record<string, unknown>;
  /** Components and text, adjacent text joined. */
  children: Array<UiNode | string>;
}

/** `ui-text-field` → `TextField`. */
export function componentName(element: string): UiComponent {
  return element.replace(/^ui-/, '').replace(/(?:^|-)([a-z])/g, (_m, c: string) => c.toUpperCase()) as UiComponent;
}

/**
 * All the text inside `node` (or a tree), concatenated like the DOM's textContent.
 *
 * @example
 * ```ts
 * import { expect } from 'vitest';
 * import { startAddonTest, textOf } from '@addon-kit/sdk/testing';
 *
 * const addon = await startAddonTest({ entry: 'src/index.tsx' });
 * expect(textOf(await addon.findByText(/^Message \S+ sent/))).toBe('Message msg_1 sent to 2 people.');
 * ```
 */
export function textOf(node: UiNode | string | ReadonlyArray<UiNode | string>): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textOf).join('');
  return textOf((node as UiNode).children);
}

/** Every node of `tree`, parents before their children. */
export function allNodes(tree: ReadonlyArray<UiNode | string>): UiNode[] {
  const out: UiNode[] = [];
  const visit = (nodes: ReadonlyArray<UiNode | string>) => {
    for (const node of nodes) {
      if (typeof node === 'string') continue;
      out.push(node);
      visit(node.children);
    }
  };
  visit(tree);
  return out;
}

/** The first node (in document order) whose text is `text` (or matches it) and none of whose children's does. */
export function queryByText(tree: ReadonlyArray<UiNode | string>, text: string | RegExp): UiNode | undefined {
  const matches = allNodes(tree).filter((node) => {
    const content = textOf(node);
    return typeof text === 'string' ? content === text : text.test(content);
  });
  return matches.find((node) => !allNodes(node.children).some((inner) => matches.includes(inner)));
}

/** A readable outline of `tree` for failure messages: one component or text per line. */
export function formatTree(tree: ReadonlyArray<UiNode | string>, indent = ''): string {
  if (tree.length === 0 && indent === '') return '(nothing rendered)';
  return tree
    .map((node) => {
      if (typeof node === 'string') return `${indent}${JSON.stringify(node)}`;
      const props = Object.entries(node.props)
        .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
        .join('');
      const children = node.children.length ? `\n${formatTree(node.children, `${indent}  `)}` : '';
      return `${indent}<${node.type}${props}>${children}`;
    })
    .join('\n');
}
