/**
 * Compiles a list's rules into one SQL condition over `people p`. Every value travels as a `$n`
 * parameter with an explicit cast; attribute and operator names only select fixed SQL fragments from
 * the tables below, so nothing a client stored is ever concatenated into SQL.
 */
import type { SqlParams } from '../jsonapi/sql.ts';
import { hasNoteInCategory } from './notes/index.ts';

/** A stored rule: `<attribute> <operator> <value>`. */
export interface RuleInput {
  attribute: string;
  operator: string;
  value: string;
}

/** The list settings that shape the query besides its rules. */
export interface RuleSettings {
  subset: string;
  includeInactive: boolean;
  returns: string;
  /** The day ages are computed on, `YYYY-MM-DD` (UTC). */
  today: string;
}

/** Why a rule cannot be compiled: which rule, which of its fields, and what is wrong. */
export class RuleCompileError extends Error {
  readonly code = 'invalid_rule';
  constructor(
    readonly position: number,
    readonly field: 'attribute' | 'operator' | 'value',
    detail: string,
  ) {
    super(detail);
  }
}

type Kind = 'text' | 'choice' | 'id' | 'number' | 'date' | 'note_category';

interface AttributeSpec {
  kind: Kind;
  /** SQL of the person's value (fixed text, never client input). */
  column: string;
  choices?: readonly string[];
}

/** Person attributes a rule may test. `age` is whole years on `today`, from the birthdate. */
export const RULE_ATTRIBUTES: Record<string, AttributeSpec> = {
  first_name: { kind: 'text', column: 'p.first_name' },
  last_name: { kind: 'text', column: 'p.last_name' },
  email: { kind: 'text', column: 'p.email' },
  membership: { kind: 'text', column: 'p.membership' },
  gender: { kind: 'choice', column: 'p.gender', choices: ['M', 'F'] },
  status: { kind: 'choice', column: 'p.status', choices: ['active', 'inactive'] },
  campus_id: { kind: 'id', column: 'p.campus_id' },
  age: { kind: 'number', column: 'p.birthdate' },
  birthdate: { kind: 'date', column: 'p.birthdate' },
  created_at: { kind: 'date', column: "(p.created_at AT TIME ZONE 'UTC')::date" },
  note_category: { kind: 'note_category', column: '' },
};

const BLANK = ['is_blank', 'is_not_blank'] as const;

/** Operators each kind of attribute accepts. */
export const RULE_OPERATORS: Record<Kind, readonly string[]> = {
  text: ['is', 'is_not', 'contains', 'does_not_contain', 'starts_with', 'ends_with', ...BLANK],
  choice: ['is', 'is_not', ...BLANK],
  id: ['is', 'is_not', ...BLANK],
  number: ['is', 'is_not', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', ...BLANK],
  date: ['is', 'is_not', 'before', 'after', 'on_or_before', 'on_or_after', ...BLANK],
  note_category: ['is', 'is_not'],
};

const COMPARE: Record<string, string> = {
  is: '=',
  greater_than: '>',
  greater_than_or_equal: '>=',
  less_than: '<',
  less_than_or_equal: '<=',
  before: '<',
  after: '>',
  on_or_before: '<=',
  on_or_after: '>=',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Rejects a rule the compiler cannot turn into SQL (also used to validate before storing). */
export function checkRule(rule: RuleInput, position: number): void {
  const spec = RULE_ATTRIBUTES[rule.attribute];
  if (!spec)
    throw new RuleCompileError(
      position,
      'attribute',
      `Rule ${position}: attribute ${JSON.stringify(rule.attribute)} is not one of ${Object.keys(RULE_ATTRIBUTES).join(', ')}`,
    );
  const operators = RULE_OPERATORS[spec.kind];
  if (!operators.includes(rule.operator))
    throw new RuleCompileError(
      position,
      'operator',
      `Rule ${position}: operator ${JSON.stringify(rule.operator)} does not apply to ${rule.attribute}; use one of ${operators.join(', ')}`,
    );
  if ((BLANK as readonly string[]).includes(rule.operator)) return;
  const bad = (what: string) =>
    new RuleCompileError(position, 'value', `Rule ${position}: the value of ${rule.attribute} must be ${what}`);
  switch (spec.kind) {
    case 'text':
    case 'note_category':
      if (rule.value.trim() === '') throw bad('a non-empty text');
      return;
    case 'choice':
      if (!spec.choices!.includes(rule.value)) throw bad(`one of ${spec.choices!.join(', ')}`);
      return;
    case 'id':
      if (!/^[1-9]\d{0,17}$/.test(rule.value)) throw bad('an id');
      return;
    case 'number':
      if (!/^\d{1,3}$/.test(rule.value)) throw bad('a whole number from 0 to 999');
      return;
    case 'date':
      if (!DATE.test(rule.value) || Number.isNaN(Date.parse(`${rule.value}T00:00:00Z`)))
        throw bad('a date (YYYY-MM-DD)');
      return;
  }
}

function compileRule(rule: RuleInput, params: SqlParams, settings: RuleSettings, organizationParam: string): string {
  const spec = RULE_ATTRIBUTES[rule.attribute]!;
  const column = spec.kind === 'number' ? 'p.birthdate' : spec.column;
  const op = rule.operator;
  if (op === 'is_blank') return spec.kind === 'text' ? `COALESCE(${column}, '') = ''` : `${column} IS NULL`;
  if (op === 'is_not_blank') return spec.kind === 'text' ? `COALESCE(${column}, '') <> ''` : `${column} IS NOT NULL`;
  switch (spec.kind) {
    case 'text': {
      const value = `lower(${params.add(rule.value)}::text)`;
      const lowered = `lower(${column})`;
      switch (op) {
        case 'is':
          return `${lowered} = ${value}`;
        case 'is_not':
          return `${lowered} IS DISTINCT FROM ${value}`;
        case 'contains':
          return `strpos(${lowered}, ${value}) > 0`;
        case 'does_not_contain':
          return `COALESCE(strpos(${lowered}, ${value}), 0) = 0`;
        case 'starts_with':
          return `left(${lowered}, char_length(${value})) = ${value}`;
        default:
          return `right(${lowered}, char_length(${value})) = ${value}`;
      }
    }
    case 'choice':
      return op === 'is'
        ? `${column} = ${params.add(rule.value)}::text`
        : `${column} IS DISTINCT FROM ${params.add(rule.value)}::text`;
    case 'id':
      return op === 'is'
        ? `${column} = ${params.add(rule.value)}::bigint`
        : `${column} IS DISTINCT FROM ${params.add(rule.value)}::bigint`;
    case 'number':
      return ageCondition(op, Number(rule.value), params, settings);
    case 'date':
      return op === 'is_not'
        ? `${column} IS DISTINCT FROM ${params.add(rule.value)}::date`
        : `${column} ${COMPARE[op]} ${params.add(rule.value)}::date`;
    case 'note_category': {
      const has = hasNoteInCategory('p.id', organizationParam, `${params.add(rule.value)}::text`);
      return op === 'is' ? has : `NOT ${has}`;
    }
  }
}

/**
 * `age <op> n` as a range of birthdates (the birthday n years before today), so no age is computed
 * per person: age >= n ⇔ birthdate <= today − n years. People without a birthdate match only is_not.
 */
function ageCondition(op: string, n: number, params: SqlParams, settings: RuleSettings): string {
  const today = params.add(settings.today);
  const bornBy = (years: number) => `(${today}::date - make_interval(years => ${params.add(years)}::int))::date`;
  switch (op) {
    case 'greater_than_or_equal':
      return `p.birthdate <= ${bornBy(n)}`;
    case 'greater_than':
      return `p.birthdate <= ${bornBy(n + 1)}`;
    case 'less_than_or_equal':
      return `p.birthdate > ${bornBy(n + 1)}`;
    case 'less_than':
      return `p.birthdate > ${bornBy(n)}`;
    case 'is':
      return `(p.birthdate > ${bornBy(n + 1)} AND p.birthdate <= ${bornBy(n)})`;
    default:
      return `(p.birthdate IS NULL OR NOT (p.birthdate > ${bornBy(n + 1)} AND p.birthdate <= ${bornBy(n)}))`;
  }
}

/**
 * The WHERE condition (over `people p`) of the people a list finds: in the organization, active
 * unless include_inactive, of the age group `returns` names, and matching the rules by subset.
 * No rules → nobody (a list without criteria finds no one).
 * @throws RuleCompileError for an unknown attribute, operator or unusable value
 */
export function compileListCondition(
  rules: readonly RuleInput[],
  settings: RuleSettings,
  organizationId: string,
  params: SqlParams,
): string {
  rules.forEach((rule, i) => checkRule(rule, i + 1));
  const organization = params.add(organizationId);
  const parts = [`p.organization_id = ${organization}::bigint`];
  if (!settings.includeInactive) parts.push(`p.status = 'active'`);
  if (settings.returns === 'adults') parts.push(ageCondition('greater_than_or_equal', 18, params, settings));
  if (settings.returns === 'children') parts.push(ageCondition('less_than', 18, params, settings));
  if (rules.length === 0) {
    parts.push('false');
  } else {
    const joiner = settings.subset === 'any' ? ' OR ' : ' AND ';
    parts.push(
      `(${rules.map((rule) => `(${compileRule(rule, params, settings, `${organization}::bigint`)})`).join(joiner)})`,
    );
  }
  return parts.join(' AND ');
}
