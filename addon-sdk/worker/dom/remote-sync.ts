/**
 * Connects the small DOM to remote-dom: a change under a connected root becomes the mutation record
 * `@remote-dom/core/polyfill`'s hooks would send (insert, remove, text; attributes of plain elements only —
 * remote elements report their own properties), with remote-dom's own ids and serialization.
 */
import './small-dom.ts'; // first: remote-dom's element classes extend the HTMLElement it installs
import {
  connectRemoteNode,
  disconnectRemoteNode,
  remoteId,
  serializeRemoteNode,
  updateRemoteElementAttribute,
  type RemoteConnection,
  type RemoteRootElement,
} from '@remote-dom/core/elements';
import { treeHooks, type SmallNode } from './small-dom.ts';

/** remote-dom's record types (`MUTATION_TYPE_*` of `@remote-dom/core`). */
const INSERT_CHILD = 0;
const REMOVE_CHILD = 1;
const UPDATE_TEXT = 2;

const roots = new WeakMap<object, RemoteConnection>();

/** Connects `root` to the host: its tree is sent now, and every later change to it. */
export function connectRoot(root: RemoteRootElement, connection: RemoteConnection): void {
  roots.set(root, connection);
  root.connect(connection);
}

/** The connection of the root `node` is under, if any. */
function connectionOf(node: SmallNode): RemoteConnection | undefined {
  for (let current: SmallNode | null = node; current; current = current.parentNode) {
    const connection = roots.get(current);
    if (connection) return connection;
  }
  return undefined;
}

const id = (node: SmallNode) => remoteId(node as unknown as Node);

treeHooks.insertChild = (parent, node, index) => {
  const connection = connectionOf(parent);
  if (!connection) return;
  connectRemoteNode(node as unknown as Node, connection);
  connection.mutate([[INSERT_CHILD, id(parent), serializeRemoteNode(node as unknown as Node), index]]);
};
treeHooks.removeChild = (parent, node, index) => {
  const connection = connectionOf(parent);
  if (!connection) return;
  disconnectRemoteNode(node as unknown as Node);
  connection.mutate([[REMOVE_CHILD, id(parent), index]]);
};
treeHooks.setText = (text, data) => {
  connectionOf(text)?.mutate([[UPDATE_TEXT, id(text), data]]);
};
// Remote elements (custom, with a `-`) turn attributes into their properties themselves.
treeHooks.setAttribute = (element, name, value) => {
  if (!element.localName.includes('-')) updateRemoteElementAttribute(element as unknown as Element, name, value);
};
