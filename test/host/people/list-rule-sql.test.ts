import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { SqlParams } from '#host/jsonapi/sql.ts';
import { compileListCondition, RuleCompileError, type RuleInput } from '#host/people/list-rule-sql.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;
let org: string;
const born: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  org = (
    await db.query<{ id: string }>("INSERT INTO organizations (name, slug) VALUES ('Ages', 'ages') RETURNING id::text")
  ).rows[0]!.id;
  // Birthdays around the boundaries of "18 on 2026-02-28" and "18 on 2024-02-29".
  for (const date of [
    '2008-02-27',
    '2008-02-28',
    '2008-02-29',
    '2008-03-01',
    '2006-02-28',
    '2006-03-01',
    '2005-03-01',
  ]) {
    born[date] = (
      await db.query<{ id: string }>(
        "INSERT INTO people (organization_id, first_name, last_name, birthdate) VALUES ($1, 'B', $2, $3::date) RETURNING id::text",
        [org, date, date],
      )
    ).rows[0]!.id;
  }
  await db.query("INSERT INTO people (organization_id, first_name, last_name) VALUES ($1, 'No', 'Birthdate')", [org]);
});
afterAll(() => db.close());

async function match(rules: RuleInput[], today: string): Promise<string[]> {
  const params = new SqlParams();
  const condition = compileListCondition(
    rules,
    { subset: 'all', includeInactive: false, returns: 'individuals', today },
    org,
    params,
  );
  const { rows } = await db.query<{ last_name: string }>(
    `SELECT p.last_name FROM people p WHERE ${condition} ORDER BY p.last_name`,
    params.values,
  );
  return rows.map((r) => r.last_name);
}

describe('compileListCondition()', () => {
  it('counts whole years, a birthday on the day included [age]', async () => {
    expect(await match([{ attribute: 'age', operator: 'greater_than_or_equal', value: '18' }], '2026-02-28')).toEqual([
      '2005-03-01',
      '2006-02-28',
      '2006-03-01',
      '2008-02-27',
      '2008-02-28',
    ]);
    expect(await match([{ attribute: 'age', operator: 'is', value: '18' }], '2026-02-28')).toEqual([
      '2008-02-27',
      '2008-02-28',
    ]);
    expect(await match([{ attribute: 'age', operator: 'less_than', value: '18' }], '2026-02-28')).toEqual([
      '2008-02-29',
      '2008-03-01',
    ]);
    expect(await match([{ attribute: 'age', operator: 'greater_than', value: '19' }], '2026-02-28')).toEqual([
      '2005-03-01',
      '2006-02-28',
    ]);
    expect(await match([{ attribute: 'age', operator: 'less_than_or_equal', value: '19' }], '2026-02-28')).toEqual([
      '2006-03-01',
      '2008-02-27',
      '2008-02-28',
      '2008-02-29',
      '2008-03-01',
    ]);
    expect(await match([{ attribute: 'age', operator: 'is_not', value: '18' }], '2026-02-28')).toEqual([
      '2005-03-01',
      '2006-02-28',
      '2006-03-01',
      '2008-02-29',
      '2008-03-01',
      'Birthdate',
    ]);
  });

  it('makes a 29 February birthday a year older on 1 March of a common year and on 29 February of a leap year [age]', async () => {
    expect(await match([{ attribute: 'age', operator: 'is', value: '18' }], '2026-03-01')).toEqual([
      '2008-02-27',
      '2008-02-28',
      '2008-02-29',
      '2008-03-01',
    ]);
    expect(await match([{ attribute: 'age', operator: 'is', value: '16' }], '2024-02-29')).toEqual([
      '2008-02-27',
      '2008-02-28',
      '2008-02-29',
    ]);
  });

  it('puts no value into the SQL text [parameters]', () => {
    const params = new SqlParams();
    const value = "Robert'); DROP TABLE people; --";
    const sql = compileListCondition(
      [
        { attribute: 'first_name', operator: 'contains', value },
        { attribute: 'note_category', operator: 'is', value },
      ],
      { subset: 'any', includeInactive: true, returns: 'individuals', today: '2026-01-01' },
      org,
      params,
    );
    expect(sql).not.toContain('Robert');
    expect(params.values).toEqual([org, value, value]);
  });

  it('throws RuleCompileError naming the rule and field [errors]', () => {
    const compile = (rule: RuleInput) => () =>
      compileListCondition(
        [{ attribute: 'gender', operator: 'is', value: 'F' }, rule],
        { subset: 'all', includeInactive: false, returns: 'individuals', today: '2026-01-01' },
        org,
        new SqlParams(),
      );
    expect(compile({ attribute: 'salary', operator: 'is', value: '1' })).toThrow(RuleCompileError);
    let caught: unknown;
    try {
      compile({ attribute: 'campus_id', operator: 'contains', value: '1' })();
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ position: 2, field: 'operator' });
    expect(compile({ attribute: 'campus_id', operator: 'is', value: '1 OR 1=1' })).toThrow(
      'Rule 2: the value of campus_id must be an id',
    );
  });
});
