import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  attributeSchema,
  collectionEnvelopeSchema,
  errorBodySchema,
  fieldsParameter,
  includedSchema,
  linkNamesOf,
  resourceSchema,
  singleEnvelopeSchema,
  whereParameters,
} from '#host/jsonapi/openapi-schema.ts';
import { renderResource, type ResourceDefinition } from '#host/jsonapi/resource.ts';
import { NotFoundError } from '#host/errors.ts';

const widget: ResourceDefinition = {
  type: 'Widget',
  attributes: {
    name: { type: 'string' },
    size: { type: 'integer', nullable: true },
    made_at: { type: 'date_time' },
    tags: { type: 'array', items: 'string' },
    kind: { type: 'string', enum: ['a', 'b'] },
  },
  fields: ['name', 'size', 'owner'],
  relationships: {
    owner: {
      type: 'Person',
      id: (row) => row.owner_id as string,
      related: (row, base) => `${base}/people/${row.owner_id as string}`,
    },
  },
  links: (row, base) => ({
    self: `${base}/widgets/${row.id as string}`,
    parts: `${base}/widgets/${row.id as string}/parts`,
  }),
  where: { kind: { type: 'string', column: 'w.kind' } },
  canQueryBy: ['kind'],
};

function validator() {
  const ajv = new Ajv2020.default({ strict: true, strictTypes: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'urn:test:widget', $defs: { Widget: resourceSchema(widget) } });
  return ajv;
}
const row = {
  id: '7',
  name: 'W',
  size: null,
  made_at: new Date('2026-01-02T03:04:05Z'),
  tags: ['x'],
  kind: 'a',
  owner_id: '3',
};

describe('attributeSchema()', () => {
  it('maps attribute types, nullability and enums to JSON Schema', () => {
    expect(attributeSchema({ type: 'date_time' })).toEqual({ type: 'string', format: 'date-time' });
    expect(attributeSchema({ type: 'integer', nullable: true })).toEqual({ type: ['integer', 'null'] });
    expect(attributeSchema({ type: 'string', enum: ['a'], nullable: true, description: 'd' })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
      description: 'd',
    });
    expect(attributeSchema({ type: 'array', items: 'boolean' })).toEqual({ type: 'array', items: { type: 'boolean' } });
  });
});

describe('resourceSchema()', () => {
  it('accepts what renderResource renders, whole and sparse', () => {
    const ajv = validator();
    const validate = ajv.compile({ $ref: 'urn:test:widget#/$defs/Widget' });
    expect(validate(renderResource(widget, row, 'http://h'))).toBe(true);
    expect(validate(renderResource(widget, row, 'http://h', new Set(['size'])))).toBe(true);
  });

  it('refuses an undocumented attribute, a wrong type and a missing link', () => {
    const validate = validator().compile({ $ref: 'urn:test:widget#/$defs/Widget' });
    const good = renderResource(widget, row, 'http://h');
    expect(validate({ ...good, attributes: { ...good.attributes, colour: 'red' } })).toBe(false);
    expect(validate({ ...good, attributes: { ...good.attributes, kind: 'c' } })).toBe(false);
    expect(validate({ ...good, links: { self: good.links.self } })).toBe(false);
  });

  it('reads link names from the definition itself', () => {
    expect(linkNamesOf(widget)).toEqual(['self', 'parts']);
  });
});

describe('collectionEnvelopeSchema()', () => {
  it('requires can_query_by exactly when the definition has it', () => {
    const schema = collectionEnvelopeSchema(widget, ['Organization']) as {
      properties: { meta: { required: string[]; properties: Record<string, unknown> } };
    };
    expect(schema.properties.meta.required).toEqual(['total_count', 'count', 'parent', 'can_query_by']);
    expect(schema.properties.meta.properties.can_query_by).toMatchObject({ const: ['kind'] });
  });
});

const person: ResourceDefinition = {
  type: 'Person',
  attributes: { name: { type: 'string' } },
  fields: ['name'],
  links: (r, base) => ({ self: `${base}/people/${r.id as string}` }),
};

describe('includedSchema() / singleEnvelopeSchema() / collectionEnvelopeSchema()', () => {
  function envelopeValidator(includable: ResourceDefinition[]) {
    const ajv = new Ajv2020.default({ strict: true, strictTypes: false });
    addFormats.default(ajv);
    const defs = { Widget: resourceSchema(widget), Person: resourceSchema(person) };
    const rewrite = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', 'urn:test:defs#/$defs/'));
    ajv.addSchema({ $id: 'urn:test:defs', $defs: defs });
    return {
      single: ajv.compile(rewrite(singleEnvelopeSchema(widget, ['Organization'], includable))),
      collection: ajv.compile(rewrite(collectionEnvelopeSchema(widget, ['Organization'], includable))),
    };
  }
  const widgetObject = renderResource(widget, row, 'http://h');
  const personObject = renderResource(person, { id: '3', name: 'P' }, 'http://h');
  const meta = { parent: { id: '1', type: 'Organization' } };
  const page = { total_count: 1, count: 1, ...meta, can_query_by: ['kind'] };

  it('requires included, an empty array when nothing can be included [no includes]', () => {
    const { single, collection } = envelopeValidator([]);
    expect(single({ data: widgetObject, included: [], meta })).toBe(true);
    expect(single({ data: widgetObject, meta })).toBe(false);
    expect(single({ data: widgetObject, included: [personObject], meta })).toBe(false);
    expect(collection({ data: [widgetObject], included: [], meta: page, links: { self: 'http://h/widgets' } })).toBe(
      true,
    );
    expect(collection({ data: [widgetObject], meta: page, links: { self: 'http://h/widgets' } })).toBe(false);
  });

  it('accepts resources of the includable types under included, and no others [includes]', () => {
    const { single, collection } = envelopeValidator([person]);
    expect(single({ data: widgetObject, included: [personObject], meta })).toBe(true);
    expect(single({ data: widgetObject, included: [], meta })).toBe(true);
    expect(single({ data: widgetObject, included: [widgetObject], meta })).toBe(false);
    expect(
      collection({ data: [widgetObject], included: [personObject], meta: page, links: { self: 'http://h/widgets' } }),
    ).toBe(true);
    expect(includedSchema([person, widget])).toMatchObject({
      type: 'array',
      items: { oneOf: [{ $ref: '#/components/schemas/Person' }, { $ref: '#/components/schemas/Widget' }] },
    });
  });
});

describe('fieldsParameter() / whereParameters()', () => {
  it('describe the query rules from the definition', () => {
    expect(fieldsParameter(widget).schema).toEqual({
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      items: { enum: ['name', 'size', 'owner'] },
    });
    expect(whereParameters(widget)).toEqual([
      { name: 'where[kind]', in: 'query', description: expect.any(String), schema: { type: 'string' } },
    ]);
  });
});

describe('errorBodySchema()', () => {
  it('accepts what HostError renders and nothing else', () => {
    const ajv = new Ajv2020.default({ strict: true });
    const validate = ajv.compile(errorBodySchema());
    expect(validate({ errors: new NotFoundError().toErrors() })).toBe(true);
    expect(validate({ errors: [] })).toBe(false);
    expect(validate({ errors: [{ status: '404', title: 'Not Found' }] })).toBe(false);
  });
});
