import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeopleFixture, FORBIDDEN_EDITOR, NOT_FOUND, sqlRows, type PeopleFixture } from './people-fixture.ts';

/** A person as the test sees them, read with plain SQL. */
interface P {
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  membership: string | null;
  gender: string | null;
  status: string;
  birthdate: string | null;
  campus_id: string | null;
  created_on: string;
  categories: string[];
}
type Rule = [attribute: string, operator: string, value: string];

let f: PeopleFixture;
let people: P[];
let firstCampus: string;

async function loadPeople(): Promise<P[]> {
  const rows = await sqlRows<Omit<P, 'categories'>>(
    f.db,
    `SELECT id::text, first_name, last_name, email, membership, gender, status, to_char(birthdate, 'YYYY-MM-DD') AS birthdate, campus_id::text,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS created_on
     FROM people WHERE organization_id = $1`,
    [f.demoId],
  );
  const notes = await sqlRows<{ person_id: string; name: string }>(
    f.db,
    'SELECT n.person_id::text, c.name FROM notes n JOIN note_categories c ON c.id = n.note_category_id WHERE n.organization_id = $1',
    [f.demoId],
  );
  return rows.map((p) => ({
    ...p,
    categories: notes.filter((n) => n.person_id === p.id).map((n) => n.name.toLowerCase()),
  }));
}

/** Whole years between a YYYY-MM-DD birthdate and today. */
function ageOn(birthdate: string, today: string): number {
  const [by, bm, bd] = birthdate.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number];
  return ty - by - (tm < bm || (tm === bm && td < bd) ? 1 : 0);
}

/** The test's own reading of a rule (written from the documented semantics, not from the compiler). */
function matches(p: P, [attribute, operator, value]: Rule, today: string): boolean {
  const raw: string | number | null =
    attribute === 'age'
      ? p.birthdate
        ? ageOn(p.birthdate, today)
        : null
      : attribute === 'created_at'
        ? p.created_on
        : ((p as unknown as Record<string, string | null>)[attribute] ?? null);
  if (operator === 'is_blank') return raw === null || raw === '';
  if (operator === 'is_not_blank') return raw !== null && raw !== '';
  if (attribute === 'note_category') return p.categories.includes(value.toLowerCase()) === (operator === 'is');
  if (attribute === 'age') {
    const n = Number(value);
    if (raw === null) return operator === 'is_not';
    const a = raw as number;
    return {
      is: a === n,
      is_not: a !== n,
      greater_than: a > n,
      greater_than_or_equal: a >= n,
      less_than: a < n,
      less_than_or_equal: a <= n,
    }[operator]!;
  }
  if (attribute === 'birthdate' || attribute === 'created_at') {
    if (raw === null) return operator === 'is_not';
    const d = raw as string;
    return {
      is: d === value,
      is_not: d !== value,
      before: d < value,
      after: d > value,
      on_or_before: d <= value,
      on_or_after: d >= value,
    }[operator]!;
  }
  const caseless = ['first_name', 'last_name', 'email', 'membership'].includes(attribute);
  const s = raw === null ? null : caseless ? String(raw).toLowerCase() : String(raw);
  const v = caseless ? value.toLowerCase() : value;
  switch (operator) {
    case 'is':
      return s === v;
    case 'is_not':
      return s !== v;
    case 'contains':
      return s !== null && s.includes(v);
    case 'does_not_contain':
      return s === null || !s.includes(v);
    case 'starts_with':
      return s !== null && s.startsWith(v);
    case 'ends_with':
      return s !== null && s.endsWith(v);
  }
  throw new Error(`test has no reading of ${operator}`);
}

function expectedIds(
  rules: Rule[],
  settings: { subset?: 'all' | 'any'; include_inactive?: boolean; returns?: string },
  today: string,
): string[] {
  return people
    .filter((p) => settings.include_inactive || p.status === 'active')
    .filter((p) =>
      settings.returns === 'adults'
        ? p.birthdate !== null && ageOn(p.birthdate, today) >= 18
        : settings.returns === 'children'
          ? p.birthdate !== null && ageOn(p.birthdate, today) < 18
          : true,
    )
    .filter(
      (p) =>
        rules.length > 0 &&
        (settings.subset === 'any'
          ? rules.some((r) => matches(p, r, today))
          : rules.every((r) => matches(p, r, today))),
    )
    .map((p) => p.id)
    .sort((a, b) => Number(a) - Number(b));
}

async function createList(
  rules: Rule[],
  settings: {
    subset?: 'all' | 'any';
    include_inactive?: boolean;
    returns?: string;
    return_original_if_none?: boolean;
    createdBy?: string;
  } = {},
): Promise<string> {
  const [list] = await sqlRows<{ id: string }>(
    f.db,
    `INSERT INTO lists (organization_id, name, subset, include_inactive, returns, return_original_if_none, created_by_id)
     VALUES ($1, 'Test list', $2, $3, $4, $5, $6) RETURNING id::text`,
    [
      f.demoId,
      settings.subset ?? 'all',
      settings.include_inactive ?? false,
      settings.returns ?? 'individuals',
      settings.return_original_if_none ?? false,
      settings.createdBy ?? f.adminId,
    ],
  );
  for (const [i, [attribute, operator, value]] of rules.entries()) {
    await f.db.query(
      'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
      [list!.id, attribute, operator, value, i],
    );
  }
  return list!.id;
}

const run = (listId: string, auth = f.auth.admin) =>
  f.t.api().post(`/people/v2/lists/${listId}/run`).set('Authorization', auth);
const results = async (listId: string) =>
  (await sqlRows<{ person_id: string }>(f.db, 'SELECT person_id::text FROM list_results WHERE list_id = $1', [listId]))
    .map((r) => r.person_id)
    .sort((a, b) => Number(a) - Number(b));

/** Runs the list and checks results, counters and state against the test's own expectation. */
async function runAndCheck(
  listId: string,
  rules: Rule[],
  settings: Parameters<typeof expectedIds>[1] = {},
): Promise<string[]> {
  const res = await run(listId);
  expect(res.status).toBe(200);
  const today = String(res.body.data.attributes.refreshed_at).slice(0, 10);
  const expected = expectedIds(rules, settings, today);
  expect(await results(listId)).toEqual(expected);
  const inactive = new Set(people.filter((p) => p.status === 'inactive').map((p) => p.id));
  expect(res.body.data.attributes).toMatchObject({
    total_people: expected.length,
    status: 'complete',
    invalid: false,
    has_inactive_results: expected.some((id) => inactive.has(id)),
  });
  expect(res.body.data.attributes.batch_completed_at).toBe(res.body.data.attributes.refreshed_at);
  return expected;
}

beforeAll(async () => {
  f = await createPeopleFixture();
  // Blanks for is_blank / is_not_blank, set by the test so they exist whatever the seed holds.
  await f.db.query(
    `UPDATE people SET email = NULL, membership = '' WHERE id IN (SELECT id FROM people WHERE organization_id = $1 AND password_hash IS NULL ORDER BY id LIMIT 5)`,
    [f.demoId],
  );
  await f.db.query(
    `UPDATE people SET birthdate = NULL, gender = NULL, campus_id = NULL WHERE id IN (SELECT id FROM people WHERE organization_id = $1 AND password_hash IS NULL ORDER BY id OFFSET 5 LIMIT 5)`,
    [f.demoId],
  );
  // Some children, so returns=children finds someone.
  await f.db.query(
    `UPDATE people SET birthdate = DATE '2015-06-15' WHERE id IN (SELECT id FROM people WHERE organization_id = $1 AND password_hash IS NULL ORDER BY id OFFSET 10 LIMIT 8)`,
    [f.demoId],
  );
  people = await loadPeople();
  firstCampus = (
    await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM campuses WHERE organization_id = $1 ORDER BY campuses.id LIMIT 1',
      [f.demoId],
    )
  )[0]!.id;
});
afterAll(() => f.t.close());

describe('POST /people/v2/lists/{list_id}/run', () => {
  it('finds the people of every seeded list exactly, with the list counters updated', async () => {
    const seeded = await sqlRows<{ id: string; subset: 'all' | 'any' }>(
      f.db,
      'SELECT id::text, subset FROM lists WHERE organization_id = $1 ORDER BY lists.id',
      [f.demoId],
    );
    expect(seeded).toHaveLength(4);
    for (const list of seeded) {
      const rules = (
        await sqlRows<{ attribute: string; operator: string; value: string }>(
          f.db,
          'SELECT attribute, operator, value FROM list_rules WHERE list_id = $1 ORDER BY position',
          [list.id],
        )
      ).map((r) => [r.attribute, r.operator, r.value] as Rule);
      const found = await runAndCheck(list.id, rules, { subset: list.subset });
      expect(found.length).toBeGreaterThan(0);
    }
  });

  const single: Rule[] = [
    ['first_name', 'is', 'mary'],
    ['first_name', 'is_not', 'Mary'],
    ['last_name', 'contains', 'SON'],
    ['last_name', 'does_not_contain', 'son'],
    ['last_name', 'starts_with', 'Ma'],
    ['email', 'ends_with', '7@demo.test'],
    ['email', 'is_blank', ''],
    ['email', 'is_not_blank', ''],
    ['membership', 'is', 'Regular Attender'],
    ['membership', 'is_blank', ''],
    ['gender', 'is', 'M'],
    ['gender', 'is_not', 'M'],
    ['gender', 'is_blank', ''],
    ['status', 'is', 'active'],
    ['campus_id', 'is', 'FIRST'],
    ['campus_id', 'is_not', 'FIRST'],
    ['campus_id', 'is_blank', ''],
    ['age', 'is', '50'],
    ['age', 'is_not', '50'],
    ['age', 'greater_than', '60'],
    ['age', 'greater_than_or_equal', '60'],
    ['age', 'less_than', '30'],
    ['age', 'less_than_or_equal', '30'],
    ['age', 'is_not_blank', ''],
    ['birthdate', 'is', '2015-06-15'],
    ['birthdate', 'before', '1950-01-01'],
    ['birthdate', 'after', '2000-01-01'],
    ['birthdate', 'on_or_before', '1960-05-01'],
    ['birthdate', 'on_or_after', '1999-12-31'],
    ['birthdate', 'is_blank', ''],
    ['created_at', 'before', '2024-03-01'],
    ['created_at', 'after', '2025-06-01'],
    ['created_at', 'is', '2024-01-01'],
    ['note_category', 'is', 'pastoral care'],
    ['note_category', 'is_not', 'Prayer Request'],
  ];
  it.each(single)('matches %s %s %s as documented [rule]', async (attribute, operator, value) => {
    const rule: Rule = [attribute, operator, value === 'FIRST' ? firstCampus : value];
    const list = await createList([rule]);
    await runAndCheck(list, [rule]);
  });

  it('combines three conditions with subset all and with subset any [subset]', async () => {
    const rules: Rule[] = [
      ['gender', 'is', 'F'],
      ['age', 'greater_than_or_equal', '30'],
      ['membership', 'is', 'Member'],
    ];
    expect((await runAndCheck(await createList(rules), rules)).length).toBeGreaterThan(0);
    expect(
      (await runAndCheck(await createList(rules, { subset: 'any' }), rules, { subset: 'any' })).length,
    ).toBeGreaterThan(0);
  });

  it('leaves inactive people out unless include_inactive, and sets has_inactive_results [include_inactive]', async () => {
    const rules: Rule[] = [['membership', 'is', 'Visitor']];
    const without = await runAndCheck(await createList(rules), rules);
    const withInactive = await runAndCheck(await createList(rules, { include_inactive: true }), rules, {
      include_inactive: true,
    });
    expect(withInactive.length).toBeGreaterThan(without.length);
  });

  it('keeps only adults or only children by returns [returns]', async () => {
    const rules: Rule[] = [['status', 'is', 'active']];
    expect(
      (await runAndCheck(await createList(rules, { returns: 'adults' }), rules, { returns: 'adults' })).length,
    ).toBeGreaterThan(0);
    expect(
      (await runAndCheck(await createList(rules, { returns: 'children' }), rules, { returns: 'children' })).length,
    ).toBeGreaterThanOrEqual(8);
  });

  it('finds nobody for a list without rules', async () => {
    const list = await createList([]);
    expect((await run(list)).body.data.attributes.total_people).toBe(0);
  });

  it('keeps the previous results when nobody matches, only with return_original_if_none [return_original_if_none]', async () => {
    for (const keep of [true, false]) {
      const list = await createList([['membership', 'is', 'Member']], { return_original_if_none: keep });
      const first = await runAndCheck(list, [['membership', 'is', 'Member']]);
      await f.db.query("UPDATE list_rules SET value = 'Nobody at all' WHERE list_id = $1", [list]);
      const res = await run(list);
      expect(res.status).toBe(200);
      expect(await results(list)).toEqual(keep ? first : []);
      expect(res.body.data.attributes.total_people).toBe(keep ? first.length : 0);
    }
  });

  it('keeps when a person entered the list across runs and removes who no longer matches', async () => {
    const list = await createList([['gender', 'is', 'F']]);
    await run(list);
    const before = await sqlRows<{ person_id: string; created_at: Date }>(
      f.db,
      'SELECT person_id::text, created_at FROM list_results WHERE list_id = $1',
      [list],
    );
    await f.db.query("UPDATE list_rules SET attribute = 'membership', value = 'Member' WHERE list_id = $1", [list]);
    await f.db.query(
      'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, 1)',
      [list, 'gender', 'is', 'F'],
    );
    await runAndCheck(list, [
      ['membership', 'is', 'Member'],
      ['gender', 'is', 'F'],
    ]);
    const after = await sqlRows<{ person_id: string; created_at: Date }>(
      f.db,
      'SELECT person_id::text, created_at FROM list_results WHERE list_id = $1',
      [list],
    );
    const entered = new Map(before.map((r) => [r.person_id, new Date(r.created_at).getTime()]));
    for (const r of after) expect(new Date(r.created_at).getTime()).toBe(entered.get(r.person_id));
  });

  it('treats a value as data, never as SQL [parameters]', async () => {
    const rule: Rule = ['last_name', 'is', "x'); DELETE FROM people; --"];
    const list = await createList([rule]);
    expect((await run(list)).body.data.attributes.total_people).toBe(0);
    expect(
      (
        await sqlRows<{ n: number }>(f.db, 'SELECT count(*)::int AS n FROM people WHERE organization_id = $1', [
          f.demoId,
        ])
      )[0]!.n,
    ).toBe(people.length);
  });

  it.each([
    [
      ['shoe_size', 'is', '9'],
      'rules[1].attribute',
      'Rule 1: attribute "shoe_size" is not one of first_name, last_name, email, membership, gender, status, campus_id, age, birthdate, created_at, note_category',
    ],
    [
      ['age', 'contains', '4'],
      'rules[1].operator',
      'Rule 1: operator "contains" does not apply to age; use one of is, is_not, greater_than, greater_than_or_equal, less_than, less_than_or_equal, is_blank, is_not_blank',
    ],
    [['age', 'is', 'forty'], 'rules[1].value', 'Rule 1: the value of age must be a whole number from 0 to 999'],
    [
      ['birthdate', 'before', '1990-02-30x'],
      'rules[1].value',
      'Rule 1: the value of birthdate must be a date (YYYY-MM-DD)',
    ],
    [['gender', 'is', 'X'], 'rules[1].value', 'Rule 1: the value of gender must be one of M, F'],
  ] as [Rule, string, string][])(
    'answers 422 and marks the list failed and invalid for a rule it cannot run [%j]',
    async (rule, parameter, detail) => {
      const list = await createList([rule]);
      const res = await run(list);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        errors: [
          {
            status: '422',
            title: 'Validation Error',
            detail,
            source: { parameter },
            meta: { resource: 'List', associated_resources: [] },
          },
        ],
      });
      expect((await sqlRows(f.db, 'SELECT status, invalid, total_people FROM lists WHERE id = $1', [list]))[0]).toEqual(
        { status: 'failed', invalid: true, total_people: 0 },
      );
    },
  );

  it('lets people managers, the creator and edit shares run a list, and refuses other editors and viewers [permissions]', async () => {
    const list = await createList([['gender', 'is', 'F']]);
    const refused = await run(list, f.auth.editor);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: {
            description: 'Managing this list needs the people manager role, being its creator, or an edit share of it',
          },
        },
      ],
    });
    await f.db.query("INSERT INTO list_shares (list_id, person_id, permission) VALUES ($1, $2, 'view')", [
      list,
      f.editorId,
    ]);
    expect((await run(list, f.auth.editor)).status).toBe(403);
    await f.db.query("UPDATE list_shares SET permission = 'edit' WHERE list_id = $1", [list]);
    expect((await run(list, f.auth.editor)).status).toBe(200);
    expect(
      (await run(await createList([['gender', 'is', 'F']], { createdBy: f.editorId }), f.auth.editor)).status,
    ).toBe(200);
    const viewer = await run(list, f.auth.viewer);
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual(FORBIDDEN_EDITOR);
  });

  it('answers 404 for another organization list [tenant isolation]', async () => {
    const [other] = await sqlRows<{ id: string; total_people: number }>(
      f.db,
      'SELECT id::text, total_people FROM lists WHERE organization_id = $1 ORDER BY lists.id LIMIT 1',
      [f.otherId],
    );
    const res = await run(other!.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect(await results(other!.id)).toEqual([]);
  });
});
