/**
 * Write bodies `{data: {type, attributes, relationships?}}` read against a declared payload shape, with
 * the spec's error rows: not an object / no `data` / wrong `type` → 400 invalid_resource_payload; an
 * attribute the type does not have → 400 "Invalid Version"; one it has but that may not be assigned →
 * 422 Forbidden Attribute; a value of the wrong kind (an unparsable date, a number for a string) → 422
 * invalid_payload; a value outside an enumeration → 422 invalid_enum_value.
 */
import {
  ForbiddenAttributeError,
  InvalidEnumValueError,
  InvalidPayloadError,
  InvalidResourcePayloadError,
  UnknownAttributeError,
} from '../errors.ts';
import { parseIsoDateTime } from './query.ts';

/** A value read from a write body. */
export type PayloadValue = string | number | boolean | Date | null;

/** One assignable attribute: its kind and whether null may be assigned. */
export interface PayloadAttribute {
  type: 'string' | 'integer' | 'boolean' | 'date_time' | 'primary_key';
  nullable?: boolean;
  /** Allowed values of a string attribute. */
  enum?: readonly string[];
}

/** A to_one relationship that may be set: its resource type and the attribute it assigns (an id). */
export interface PayloadRelationship {
  type: string;
  attribute: string;
  nullable?: boolean;
}

/** What a write body of one type may carry. */
export interface PayloadShape {
  type: string;
  assignable: Record<string, PayloadAttribute>;
  /** Attributes (and relationships) the type has but a client may not assign here. */
  readOnly: readonly string[];
  relationships?: Record<string, PayloadRelationship>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a write body; returns the assigned values keyed by attribute (relationships by their attribute). */
export function parseResourcePayload(body: unknown, shape: PayloadShape): Record<string, PayloadValue> {
  const expected = `The body must be {"data": {"type": "${shape.type}", "attributes": {…}}}`;
  if (!isPlainObject(body) || !isPlainObject(body.data)) throw new InvalidResourcePayloadError(expected);
  const data = body.data;
  if (data.type !== shape.type) throw new InvalidResourcePayloadError(`data.type must be ${shape.type}`);
  if (data.attributes !== undefined && !isPlainObject(data.attributes))
    throw new InvalidResourcePayloadError('data.attributes must be an object');
  if (data.relationships !== undefined && !isPlainObject(data.relationships))
    throw new InvalidResourcePayloadError('data.relationships must be an object');

  const out: Record<string, PayloadValue> = {};
  for (const [name, raw] of Object.entries(data.attributes ?? {})) {
    const attribute = shape.assignable[name];
    if (!attribute) {
      if (shape.readOnly.includes(name)) throw new ForbiddenAttributeError(name);
      throw new UnknownAttributeError(
        name,
        `${name} is not an attribute of ${shape.type}; assignable: ${Object.keys(shape.assignable).join(', ')}`,
      );
    }
    out[name] = readValue(name, attribute, raw);
  }
  for (const [name, raw] of Object.entries(data.relationships ?? {})) {
    const relationship = shape.relationships?.[name];
    if (!relationship) {
      if (shape.readOnly.includes(name)) throw new ForbiddenAttributeError(name);
      throw new UnknownAttributeError(
        name,
        `${name} is not an assignable relationship of ${shape.type}${shape.relationships ? `; assignable: ${Object.keys(shape.relationships).join(', ')}` : ''}`,
      );
    }
    out[relationship.attribute] = readRelationship(name, relationship, raw);
  }
  return out;
}

function readRelationship(name: string, relationship: PayloadRelationship, raw: unknown): PayloadValue {
  if (!isPlainObject(raw) || !('data' in raw))
    throw new InvalidResourcePayloadError(
      `relationships.${name} must be {"data": {"type": "${relationship.type}", "id": "…"}} or {"data": null}`,
    );
  if (raw.data === null) {
    if (relationship.nullable) return null;
    throw new InvalidPayloadError(`${name} cannot be removed`, name);
  }
  if (!isPlainObject(raw.data) || raw.data.type !== relationship.type) {
    throw new InvalidResourcePayloadError(
      `relationships.${name}.data must be {"type": "${relationship.type}", "id": "…"}`,
    );
  }
  return readValue(name, { type: 'primary_key' }, raw.data.id);
}

function readValue(name: string, attribute: PayloadAttribute, raw: unknown): PayloadValue {
  if (raw === null) {
    if (attribute.nullable) return null;
    throw new InvalidPayloadError(`${name} cannot be null`, name);
  }
  switch (attribute.type) {
    case 'string':
      if (typeof raw !== 'string') throw new InvalidPayloadError(`${name} must be a string`, name);
      // PostgreSQL text cannot hold NUL.
      if (raw.includes('\u0000')) throw new InvalidPayloadError(`${name} must not contain NUL characters`, name);
      if (attribute.enum && !attribute.enum.includes(raw)) throw new InvalidEnumValueError(name, attribute.enum);
      return raw;
    case 'boolean':
      if (typeof raw !== 'boolean') throw new InvalidPayloadError(`${name} must be true or false`, name);
      return raw;
    case 'integer':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw))
        throw new InvalidPayloadError(`${name} must be an integer`, name);
      return raw;
    case 'primary_key': {
      const id = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof id !== 'string' || !/^[1-9]\d{0,17}$/.test(id))
        throw new InvalidPayloadError(`${name} must be an id`, name);
      return id;
    }
    case 'date_time': {
      const date = typeof raw === 'string' ? parseIsoDateTime(raw) : undefined;
      if (!date) throw new InvalidPayloadError(`${name} must be an ISO 8601 date-time`, name);
      return date;
    }
  }
}
