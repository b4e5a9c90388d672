/** The Rule resource: one condition of a list, `<attribute> <operator> <value>`. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of Rule. */
export const ruleResource: ResourceDefinition = {
  type: 'Rule',
  attributes: {
    attribute: { type: 'string' },
    operator: { type: 'string' },
    value: { type: 'string' },
    position: { type: 'integer' },
    created_at: { type: 'date_time' },
    updated_at: { type: 'date_time' },
  },
  fields: ['attribute', 'operator', 'value', 'position', 'created_at', 'updated_at'],
  links: (row, base) => ({ self: `${base}/people/v2/lists/${String(row.list_id)}/rules/${String(row.id)}` }),
  order: { position: 'r.position', created_at: 'r.created_at' },
  defaultOrder: 'r.position ASC',
};

/** Columns of a Rule row (alias `r`). */
export const RULE_SELECT =
  'r.id::text AS id, r.list_id::text AS list_id, r.attribute, r.operator, r.value, r.position, r.created_at, r.updated_at';
