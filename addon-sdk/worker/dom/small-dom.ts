/**
 * The small DOM the add-on's UI renders into inside the worker, in place of `@remote-dom/polyfill` (a whole DOM
 * with selectors, HTML parsing and serialization, MutationObserver, Window, its own events: two fifths of every
 * add-on). Only what preact and remote-dom's elements use: element and text nodes, their children, attributes
 * with custom elements' `attributeChangedCallback`, a custom element registry, and the worker's own `EventTarget`
 * and `CustomEvent`. Importing it installs `document`, `Element`, `HTMLElement` and `customElements` in the
 * worker; changes to the tree go to {@link treeHooks} (`remote-sync.ts` turns them into mutation records).
 */

/** What changed in the tree, after the change (the polyfill's hooks, with the same arguments). */
export interface TreeHooks {
  insertChild?(parent: SmallElement, node: SmallNode, index: number): void;
  removeChild?(parent: SmallElement, node: SmallNode, index: number): void;
  setText?(text: SmallText, data: string): void;
  /** An attribute set (`value`) or removed (`undefined`). */
  setAttribute?(element: SmallElement, name: string, value?: string): void;
}

export const treeHooks: TreeHooks = {};

/** A node: its parent and its place among the parent's children. Events are the worker's own EventTarget's. */
export class SmallNode extends EventTarget {
  parentNode: SmallElement | null = null;

  get nextSibling(): SmallNode | null {
    const siblings = this.parentNode?.childNodes;
    return siblings?.[siblings.indexOf(this) + 1] ?? null;
  }
}

/** What preact puts in a text node (a string or a number; `null` is the empty string, as in the DOM). */
type TextData = string | number | bigint | boolean | null | undefined;

/** A text node; setting `data` is reported to the host. */
export class SmallText extends SmallNode {
  readonly nodeType = 3;
  #data: string;

  constructor(data: TextData) {
    super();
    this.#data = data == null ? '' : String(data);
  }

  get data(): string {
    return this.#data;
  }

  set data(value: TextData) {
    this.#data = value == null ? '' : String(value);
    treeHooks.setText?.(this, this.#data);
  }
}

/** The name of the element being constructed: custom element constructors take no arguments. */
let creating = '';

/** An element (also the base class of custom elements: `HTMLElement`). */
export class SmallElement extends SmallNode {
  readonly nodeType = 1;
  readonly namespaceURI = 'http://www.w3.org/1999/xhtml';
  readonly localName = creating;
  readonly childNodes: SmallNode[] = [];
  readonly attributes: Array<{ name: string; value: string }> = [];

  get tagName(): string {
    return this.localName.toUpperCase();
  }

  get firstChild(): SmallNode | null {
    return this.childNodes[0] ?? null;
  }

  /** Inserts `node` before `before` (at the end without it), first taking it from where it was. */
  insertBefore<T extends SmallNode>(node: T, before: SmallNode | null): T {
    if (node === before) before = node.nextSibling;
    const from = node.parentNode;
    const fromIndex = from ? from.childNodes.indexOf(node) : -1;
    from?.childNodes.splice(fromIndex, 1);
    const index = before ? this.childNodes.indexOf(before) : this.childNodes.length;
    if (index < 0) throw new DOMException('The reference node is not a child of this node', 'NotFoundError');
    this.childNodes.splice(index, 0, node);
    node.parentNode = this;
    if (from) treeHooks.removeChild?.(from, node, fromIndex);
    treeHooks.insertChild?.(this, node, index);
    return node;
  }

  appendChild<T extends SmallNode>(node: T): T {
    return this.insertBefore(node, null);
  }

  removeChild<T extends SmallNode>(node: T): T {
    const index = this.childNodes.indexOf(node);
    if (index < 0) throw new DOMException('The node is not a child of this node', 'NotFoundError');
    this.childNodes.splice(index, 1);
    node.parentNode = null;
    treeHooks.removeChild?.(this, node, index);
    return node;
  }

  getAttribute(name: string): string | null {
    return this.attributes.find((a) => a.name === name)?.value ?? null;
  }

  setAttribute(name: string, value: unknown): void {
    changeAttribute(this, String(name).toLowerCase(), String(value));
  }

  removeAttribute(name: string): void {
    changeAttribute(this, String(name).toLowerCase(), null);
  }

  /** Add-on strings never become HTML: the host draws only allow-listed components. */
  set innerHTML(_html: string) {
    throw new Error('addon-kit: add-on UI cannot set innerHTML (dangerouslySetInnerHTML); render components');
  }
}

type AttributeObserver = SmallElement & {
  attributeChangedCallback?(name: string, oldValue: string | null, newValue: string | null): void;
};

function changeAttribute(element: AttributeObserver, name: string, value: string | null): void {
  const index = element.attributes.findIndex((a) => a.name === name);
  const old = element.attributes[index]?.value ?? null;
  if (value !== null) {
    if (index < 0) element.attributes.push({ name, value });
    else element.attributes[index]!.value = value;
  } else if (index < 0) return;
  else element.attributes.splice(index, 1);
  treeHooks.setAttribute?.(element, name, value ?? undefined);
  const observed = (element.constructor as { observedAttributes?: readonly string[] }).observedAttributes;
  if (observed?.includes(name)) element.attributeChangedCallback?.(name, old, value);
}

type ElementClass = new () => SmallElement;
const registry = new Map<string, ElementClass>();

/** `customElements`: defined names are constructed by `document.createElement`. */
const customElements = {
  define(name: string, constructor: ElementClass): void {
    registry.set(name, constructor);
  },
  get: (name: string): ElementClass | undefined => registry.get(name),
};

/** `document`: creates elements (custom ones by their registered class) and text nodes. */
const document = {
  createElementNS(_namespace: string | null, name: string): SmallElement {
    creating = name;
    try {
      return new (registry.get(name) ?? SmallElement)();
    } finally {
      creating = '';
    }
  },
  createElement(name: string): SmallElement {
    return document.createElementNS(null, String(name).toLowerCase());
  },
  createTextNode: (data: TextData): SmallText => new SmallText(data),
};

Object.assign(globalThis, { document, customElements, Element: SmallElement, HTMLElement: SmallElement });
