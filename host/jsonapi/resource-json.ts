/**
 * The JSON text of resource objects, written straight from rows: byte for byte
 * `JSON.stringify(renderResource(…))`, without building the objects first (a page of 100 resources is
 * most of an API answer's serialization time). Each definition's keys are quoted once and kept.
 */
import {
  serializeValue,
  type AttributeDefinition,
  type RelationshipDefinition,
  type ResourceDefinition,
  type Row,
} from './resource.ts';

interface CompiledDefinition {
  type: string;
  attributes: { name: string; key: string; attr: AttributeDefinition }[];
  relationships: { name: string; key: string; rel: RelationshipDefinition; type: string }[] | undefined;
}

const compiled = new WeakMap<ResourceDefinition, CompiledDefinition>();

function compile(def: ResourceDefinition): CompiledDefinition {
  let c = compiled.get(def);
  if (!c) {
    c = {
      type: JSON.stringify(def.type),
      attributes: Object.entries(def.attributes).map(([name, attr]) => ({
        name,
        key: `${JSON.stringify(name)}:`,
        attr,
      })),
      relationships: def.relationships
        ? Object.entries(def.relationships).map(([name, rel]) => ({
            name,
            key: `${JSON.stringify(name)}:`,
            rel,
            type: JSON.stringify(rel.type),
          }))
        : undefined,
    };
    compiled.set(def, c);
  }
  return c;
}

/** `JSON.stringify(renderResource(def, row, baseUrl, fields))`, written directly. */
export function resourceJson(def: ResourceDefinition, row: Row, baseUrl: string, fields?: ReadonlySet<string>): string {
  const c = compile(def);
  let out = `{"id":${JSON.stringify(String(def.id ? def.id(row) : row.id))},"type":${c.type},"attributes":{`;
  let first = true;
  for (const { name, key, attr } of c.attributes) {
    if (fields && !fields.has(name)) continue;
    out +=
      (first ? key : `,${key}`) + JSON.stringify(serializeValue(attr.type, attr.read ? attr.read(row) : row[name]));
    first = false;
  }
  out += `},"links":${JSON.stringify(def.links(row, baseUrl))}`;
  if (c.relationships) {
    out += ',"relationships":{';
    first = true;
    for (const { name, key, rel, type } of c.relationships) {
      if (fields && !fields.has(name)) continue;
      const id = rel.id(row);
      const data = id === null || id === undefined ? 'null' : `{"type":${type},"id":${JSON.stringify(String(id))}}`;
      const links = rel.related ? `,"links":{"related":${JSON.stringify(rel.related(row, baseUrl))}}` : '';
      out += `${first ? key : `,${key}`}{"data":${data}${links}}`;
      first = false;
    }
    out += '}';
  }
  return `${out}}`;
}
