/**
 * Add-on UI: preact renders into remote elements (a small DOM inside the worker, `dom/`); remote-dom turns
 * changes into mutation records that go to the host, which renders its own allow-listed components.
 */
import { connectRoot } from './dom/remote-sync.ts'; // first: it installs the DOM remote-dom's elements extend
import {
  BatchingRemoteConnection,
  RemoteRootElement,
  createRemoteElement,
  type RemoteConnection,
} from '@remote-dom/core/elements';
import { h, render as renderPreact, type ComponentChildren } from 'preact';
import { COMPONENTS, type PropertyKind, type SelectOption } from '../protocol/components.ts';
import { onHostMessage, sendToHost } from './channel.ts';

type Fn = (...args: unknown[]) => unknown;
const functionIds = new WeakMap<Fn, number>();
const functions = new Map<number, Fn>();
let nextFunctionId = 1;

/** Functions cannot cross postMessage: each becomes {"$fn": id}, which the host calls back by id. */
function encode(value: unknown): unknown {
  if (typeof value === 'function') {
    let id = functionIds.get(value as Fn);
    if (id === undefined) {
      id = nextFunctionId++;
      functionIds.set(value as Fn, id);
      functions.set(id, value as Fn);
    }
    return { $fn: id };
  }
  if (Array.isArray(value)) return value.map(encode);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = encode(v);
    return out;
  }
  return value;
}

const connection: RemoteConnection = {
  mutate(records) {
    sendToHost({ v: 1, type: 'ui.mutate', records: encode(records) as unknown[] });
  },
  call() {
    return undefined;
  },
};

onHostMessage((message) => {
  if (message.type === 'ui.event') functions.get(message.fn)?.(...message.args);
});

const TYPES: Record<string, unknown> = {
  string: String,
  number: Number,
  boolean: Boolean,
  url: String,
  options: Array,
};
for (const [name, spec] of Object.entries(COMPONENTS)) {
  const properties: Record<string, { type: unknown }> = {};
  for (const [prop, kind] of Object.entries(spec.properties) as Array<[string, PropertyKind]>) {
    properties[prop] = { type: TYPES[kind] ?? String };
  }
  customElements.define(name, createRemoteElement({ properties: properties as never, events: [...spec.events] }));
}
customElements.define('remote-root', RemoteRootElement);

let root: RemoteRootElement | null = null;

/** Renders the add-on's UI (call again to replace it); it appears in the host page, not in the sandbox. */
export function render(ui: ComponentChildren): void {
  if (!root) {
    root = document.createElement('remote-root') as RemoteRootElement;
    connectRoot(root, new BatchingRemoteConnection(connection));
  }
  renderPreact(ui, root);
}

type Children = { children?: ComponentChildren };
type Handler<T> = ((value: T) => void) | undefined;
const detail = <T>(handler: Handler<T>) => handler && ((event: Event) => handler((event as CustomEvent<T>).detail));

/** A section heading (level 1–3). */
export const Heading = (p: { level?: 1 | 2 | 3 } & Children) =>
  h('ui-heading', { level: p.level === undefined ? undefined : String(p.level) }, p.children);
/** A paragraph of text. */
export const Text = (p: { tone?: 'default' | 'subdued' | 'critical' | 'success'; strong?: boolean } & Children) =>
  h('ui-text', p);
/** A button (`destructive` for what deletes or cannot be undone); `onPress` fires when the person clicks it. */
export const Button = ({
  onPress,
  ...p
}: {
  variant?: 'primary' | 'secondary' | 'plain' | 'destructive';
  disabled?: boolean;
  onPress?: () => void;
} & Children) => h('ui-button', { ...p, onpress: onPress && (() => onPress()) });
/** A one-line text input; `onInput` gets the current value on every keystroke; `error` says what is wrong with it. */
export const TextField = ({
  onInput,
  onChange,
  ...p
}: {
  label?: string;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  error?: string;
  type?: 'text' | 'email' | 'number' | 'search';
  onInput?: (value: string) => void;
  onChange?: (value: string) => void;
}) => h('ui-text-field', { ...p, oninput: detail(onInput), onchange: detail(onChange) });
/** A multi-line text input; `error` says what is wrong with it. */
export const TextArea = ({
  onInput,
  onChange,
  ...p
}: {
  label?: string;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  error?: string;
  rows?: number;
  onInput?: (value: string) => void;
  onChange?: (value: string) => void;
}) => h('ui-text-area', { ...p, oninput: detail(onInput), onchange: detail(onChange) });
/** A choice among options. */
export const Select = ({
  onChange,
  ...p
}: {
  label?: string;
  value?: string;
  options: SelectOption[];
  disabled?: boolean;
  error?: string;
  onChange?: (value: string) => void;
}) => h('ui-select', { ...p, onchange: detail(onChange) });
/** A checkbox; `onChange` gets the new checked state. */
export const Checkbox = ({
  onChange,
  ...p
}: {
  label?: string;
  checked?: boolean;
  disabled?: boolean;
  onChange?: (checked: boolean) => void;
}) => h('ui-checkbox', { ...p, onchange: detail(onChange) });
/** A bulleted (or numbered) list of ListItem. */
export const List = (p: { ordered?: boolean } & Children) => h('ui-list', p);
/** One item of a List. */
export const ListItem = (p: Children) => h('ui-list-item', p);
/** A link that opens in a new tab (only to an origin of the config's `ui_origins`; others are refused by the host). */
export const Link = (p: { href: string } & Children) => h('ui-link', p);
/** An image (only from an origin of the config's `ui_origins`; others are refused by the host). */
export const Image = (p: { src: string; alt: string; width?: number; height?: number }) => h('ui-image', p);
/** Lays its children out vertically or horizontally. */
export const Stack = (
  p: { direction?: 'vertical' | 'horizontal'; gap?: 'none' | 'small' | 'medium' | 'large' } & Children,
) => h('ui-stack', p);
/** A highlighted message. */
export const Banner = (p: { tone?: 'info' | 'success' | 'warning' | 'critical'; title?: string } & Children) =>
  h('ui-banner', p);
/** A loading indicator. */
export const Spinner = (p: { label?: string }) => h('ui-spinner', p);
