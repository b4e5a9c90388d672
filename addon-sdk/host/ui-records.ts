/**
 * Checks every remote-dom mutation record from the add-on against the component allow-list (and every URL
 * against the add-on's declared origins) before the receiver sees it, and turns `{"$fn": id}` references into
 * host callbacks. One bad record drops the batch.
 */
import type { RemoteMutationRecord } from '@remote-dom/core';
import {
  COMPONENTS,
  isDeclaredUrl,
  isPropertyValue,
  type ComponentSpec,
  type PropertyKind,
} from '../protocol/components.ts';

const INSERT = 0,
  REMOVE = 1,
  UPDATE_TEXT = 2,
  UPDATE_PROPERTY = 3;
const ELEMENT = 1,
  TEXT = 3,
  COMMENT = 8;
const PROPERTY = 1,
  ATTRIBUTE = 2,
  EVENT_LISTENER = 3;
const MAX_DEPTH = 64;
const MAX_TEXT = 16 * 1024;

/** Calls the add-on's function `fn` with plain-data arguments. */
export type InvokeRemote = (fn: number, args: unknown[]) => void;

/** Thrown (and caught by the caller) for a record outside the allow-list. */
export class RejectedRecord extends Error {}

/**
 * Validates records for one add-on; remembers element names by node id to check later updates. URLs (image
 * src, link href) must be on one of `uiOrigins`, the add-on config's declared origins (none: no URL at all).
 */
export function createRecordValidator(invoke: InvokeRemote, uiOrigins: readonly string[] = []) {
  const state: ValidatorState = {
    invoke,
    uiOrigins,
    elementOf: new Map<string, ComponentSpec | null>([['~', null]]),
    callbacks: new Map<number, (...args: unknown[]) => void>(),
  };
  /** The records ready for the receiver; throws RejectedRecord for anything outside the allow-list. */
  return function validate(records: unknown[]): RemoteMutationRecord[] {
    return records.map((record) => checkedRecord(state, record));
  };
}

/** One add-on's validator: its callback bridge, declared origins, the element of each node id and the callbacks made. */
interface ValidatorState {
  invoke: InvokeRemote;
  uiOrigins: readonly string[];
  elementOf: Map<string, ComponentSpec | null>;
  callbacks: Map<number, (...args: unknown[]) => void>;
}

/** One mutation record checked against the allow-list (an update only of an element inserted before). */
function checkedRecord(state: ValidatorState, record: unknown): RemoteMutationRecord {
  if (!isList(record)) throw new RejectedRecord('bad record');
  const [type, target] = record;
  switch (type) {
    case INSERT:
      if (!isIndex(record[3])) throw new RejectedRecord('bad index');
      return [INSERT, checkedId(target), checkedNode(state, record[2], 0) as never, record[3]];
    case REMOVE:
      if (!isIndex(record[2])) throw new RejectedRecord('bad index');
      return [REMOVE, checkedId(target), record[2]];
    case UPDATE_TEXT:
      if (typeof record[2] !== 'string' || record[2].length > MAX_TEXT) throw new RejectedRecord('bad text');
      return [UPDATE_TEXT, checkedId(target), record[2]];
    case UPDATE_PROPERTY: {
      const targetId = checkedId(target);
      const spec = state.elementOf.get(targetId);
      const [, , name, value, updateType = PROPERTY] = record;
      if (!spec || typeof name !== 'string') throw new RejectedRecord('update of an unknown element');
      if (updateType === PROPERTY)
        return [UPDATE_PROPERTY, targetId, name, checkedProperty(state, spec, name, value), PROPERTY];
      if (updateType === EVENT_LISTENER)
        return [UPDATE_PROPERTY, targetId, name, checkedListener(state, spec, name, value), EVENT_LISTENER];
      if (updateType === ATTRIBUTE) throw new RejectedRecord('attributes are not allowed');
      throw new RejectedRecord('bad update type');
    }
    default:
      throw new RejectedRecord('unknown record type');
  }
}

function checkedId(value: unknown): string {
  if (typeof value !== 'string' || value.length > 64) throw new RejectedRecord('bad node id');
  return value;
}

/** A node and its children: text, a comment, or an allowed element with allowed properties and listeners only. */
function checkedNode(state: ValidatorState, value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RejectedRecord('tree too deep');
  const n = value as Record<string, unknown>;
  if (!n || typeof n !== 'object') throw new RejectedRecord('bad node');
  const nodeId = checkedId(n.id);
  if (n.type === TEXT || n.type === COMMENT) {
    if (typeof n.data !== 'string' || n.data.length > MAX_TEXT) throw new RejectedRecord('bad text');
    return { id: nodeId, type: n.type, data: n.data };
  }
  if (n.type !== ELEMENT || typeof n.element !== 'string' || !Object.hasOwn(COMPONENTS, n.element)) {
    throw new RejectedRecord(`element not allowed: ${String(n.element).slice(0, 40)}`);
  }
  const spec: ComponentSpec = COMPONENTS[n.element as keyof typeof COMPONENTS];
  const properties: Record<string, unknown> = {};
  for (const [name, v] of Object.entries((n.properties as object | undefined) ?? {}))
    properties[name] = checkedProperty(state, spec, name, v);
  const eventListeners: Record<string, unknown> = {};
  for (const [name, v] of Object.entries((n.eventListeners as object | undefined) ?? {}))
    eventListeners[name] = checkedListener(state, spec, name, v);
  if (!Array.isArray(n.children)) throw new RejectedRecord('bad children');
  state.elementOf.set(nodeId, spec);
  // Attributes are never rendered, so none are passed on.
  return {
    id: nodeId,
    type: ELEMENT,
    element: n.element,
    properties,
    attributes: {},
    eventListeners,
    children: n.children.map((c) => checkedNode(state, c, depth + 1)),
  };
}

function checkedProperty(state: ValidatorState, spec: ComponentSpec, name: string, value: unknown): unknown {
  const kind = Object.hasOwn(spec.properties, name) ? (spec.properties[name] as PropertyKind) : undefined;
  if (!kind || !isPropertyValue(kind, value)) throw new RejectedRecord(`property not allowed: ${name.slice(0, 40)}`);
  if (kind === 'url' && value != null && !isDeclaredUrl(value, state.uiOrigins))
    throw new RejectedRecord(`origin not declared: ${name}`);
  return value;
}

function checkedListener(state: ValidatorState, spec: ComponentSpec, name: string, value: unknown) {
  if (!spec.events.includes(name)) throw new RejectedRecord(`event not allowed: ${name.slice(0, 40)}`);
  return callbackOf(state, value);
}

/** The host-side function calling the add-on's function reference `{$fn}` (one per reference, kept). */
function callbackOf(state: ValidatorState, value: unknown) {
  if (value === null || value === undefined) return undefined;
  const fn = (value as { $fn?: unknown }).$fn;
  if (typeof value !== 'object' || !Number.isSafeInteger(fn))
    throw new RejectedRecord('event listener is not a function reference');
  let cb = state.callbacks.get(fn as number);
  if (!cb) {
    cb = (...args: unknown[]) => state.invoke(fn as number, args.filter(isPlain));
    state.callbacks.set(fn as number, cb);
  }
  return cb;
}

function isPlain(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    typeof value === 'number'
  );
}

/** `Array.isArray` without its `any[]`: the items stay unknown until checked. */
function isList(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

function isIndex(value: unknown): value is number {
  return Number.isSafeInteger(value);
}
