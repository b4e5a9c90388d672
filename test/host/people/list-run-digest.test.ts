import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runList } from '#host/people/run-list.ts';
import { createPeopleFixture, sqlRows, type PeopleFixture } from './people-fixture.ts';

let f: PeopleFixture;
beforeAll(async () => {
  f = await createPeopleFixture();
});
afterAll(() => f.t.close());

const FIRST = new Date('2026-03-01T12:00:00Z');
const SECOND = new Date('2026-03-02T12:00:00Z');
const THIRD = new Date('2026-03-03T12:00:00Z');

/** People of the demo organization with this last name (active unless told), created for one test. */
async function createPeople(lastName: string, count: number, status = 'active'): Promise<string[]> {
  const rows = await sqlRows<{ id: string }>(
    f.db,
    `INSERT INTO people (organization_id, first_name, last_name, status)
     SELECT $1, 'Digest' || i, $2, $3 FROM generate_series(1, $4::int) AS i RETURNING id::text`,
    [f.demoId, lastName, status, count],
  );
  return rows.map((r) => r.id).sort(byId);
}

const byId = (a: string, b: string) => Number(a) - Number(b);

/** A list of the people with this last name (`last_name is <name>`). */
async function createList(lastName: string, includeInactive = false): Promise<string> {
  const [list] = await sqlRows<{ id: string }>(
    f.db,
    "INSERT INTO lists (organization_id, name, subset, include_inactive) VALUES ($1, 'Digest', 'all', $2) RETURNING id::text",
    [f.demoId, includeInactive],
  );
  await setRule(list!.id, lastName);
  return list!.id;
}

async function setRule(listId: string, lastName: string): Promise<void> {
  await f.db.query('DELETE FROM list_rules WHERE list_id = $1', [listId]);
  await f.db.query(
    "INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, 'last_name', 'is', $2, 0)",
    [listId, lastName],
  );
}

interface ResultRow {
  id: string;
  person_id: string;
  created_at: string;
}

/** The list's results with their own ids and entry times, by person. */
async function results(listId: string): Promise<ResultRow[]> {
  return sqlRows<ResultRow>(
    f.db,
    `SELECT id::text, person_id::text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS created_at
     FROM list_results WHERE list_id = $1 ORDER BY person_id`,
    [listId],
  );
}

const personIds = async (listId: string) => (await results(listId)).map((r) => r.person_id);

interface ListRow {
  total_people: number;
  has_inactive_results: boolean;
  refreshed_at: string;
  status: string;
  results_digest: string | null;
}

async function listRow(listId: string): Promise<ListRow> {
  const [row] = await sqlRows<ListRow>(
    f.db,
    `SELECT total_people, has_inactive_results, to_char(refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS refreshed_at,
            status, results_digest FROM lists WHERE id = $1`,
    [listId],
  );
  return row!;
}

const run = (listId: string, now: Date) => runList(f.db, { organizationId: f.demoId, listId, now, chunkPeople: 3 });

describe('runList() with unchanged results [digest]', () => {
  it('leaves the results as they are and updates only the list row when the same people match', async () => {
    const people = await createPeople('Unchangedson', 5);
    const listId = await createList('Unchangedson', true);
    expect(await run(listId, FIRST)).toEqual({ ok: true, matched: 5, added: 5, removed: 0, kept: false });
    const before = await results(listId);
    expect(before.map((r) => r.person_id)).toEqual(people);
    expect(before.every((r) => r.created_at === '2026-03-01T12:00:00')).toBe(true);
    const first = await listRow(listId);
    expect(first).toMatchObject({ total_people: 5, has_inactive_results: false, refreshed_at: '2026-03-01T12:00:00' });
    expect(first.results_digest).toMatch(/^\d+:5:-?\d+:-?\d+$/);

    // Still matched (the list includes inactive people), but the counts the list shows change.
    await f.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [people[2]]);
    expect(await run(listId, SECOND)).toEqual({ ok: true, matched: 5, added: 0, removed: 0, kept: false });
    expect(await results(listId)).toEqual(before);
    const second = await listRow(listId);
    expect(second).toEqual({
      total_people: 5,
      has_inactive_results: true,
      refreshed_at: '2026-03-02T12:00:00',
      status: 'complete',
      // Written by the first run only: the second did not recompute the results.
      results_digest: first.results_digest,
    });
  });

  it('diffs in full after a matched person is deleted', async () => {
    const people = await createPeople('Deletedson', 4);
    const listId = await createList('Deletedson');
    await run(listId, FIRST);
    const first = await listRow(listId);
    await f.db.query('DELETE FROM people WHERE id = $1', [people[1]]);
    // The person's result went with them, and with it the digest.
    expect(await personIds(listId)).toEqual(people.filter((id) => id !== people[1]));
    expect((await listRow(listId)).results_digest).toBeNull();

    expect(await run(listId, SECOND)).toEqual({ ok: true, matched: 3, added: 0, removed: 0, kept: false });
    expect(await personIds(listId)).toEqual(people.filter((id) => id !== people[1]));
    const second = await listRow(listId);
    expect(second).toMatchObject({ total_people: 3, refreshed_at: '2026-03-02T12:00:00' });
    expect(second.results_digest).not.toBeNull();
    expect(second.results_digest).not.toBe(first.results_digest);
  });

  it('diffs in full after a person’s status changes who they match, and after a person enters', async () => {
    const people = await createPeople('Statusson', 4);
    const listId = await createList('Statusson');
    await run(listId, FIRST);
    const before = await results(listId);

    await f.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [people[0]]);
    expect(await run(listId, SECOND)).toEqual({ ok: true, matched: 3, added: 0, removed: 1, kept: false });
    expect(await results(listId)).toEqual(before.slice(1));
    expect(await listRow(listId)).toMatchObject({ total_people: 3, has_inactive_results: false });

    await f.db.query("UPDATE people SET status = 'active' WHERE id = $1", [people[0]]);
    const [added] = await createPeople('Statusson', 1);
    expect(await run(listId, THIRD)).toEqual({ ok: true, matched: 5, added: 2, removed: 0, kept: false });
    const after = await results(listId);
    expect(after.map((r) => r.person_id)).toEqual([...people, added!].sort(byId));
    // Those who stayed keep their result and its time; those who (re-)entered get new ones.
    expect(after.slice(1, 4)).toEqual(before.slice(1));
    expect(after[0]!.created_at).toBe('2026-03-03T12:00:00');
    expect(after[4]!.created_at).toBe('2026-03-03T12:00:00');
  });

  it('diffs in full after a rule changes', async () => {
    const old = await createPeople('Ruleson', 3);
    const now = await createPeople('Rulesdottir', 2);
    const listId = await createList('Ruleson');
    await run(listId, FIRST);
    await setRule(listId, 'Rulesdottir');
    expect(await run(listId, SECOND)).toEqual({ ok: true, matched: 2, added: 2, removed: 3, kept: false });
    expect(await personIds(listId)).toEqual(now);
    expect(old.every((id) => !now.includes(id))).toBe(true);
    expect(await listRow(listId)).toMatchObject({ total_people: 2, status: 'complete' });
    // The same again: unchanged.
    const digest = (await listRow(listId)).results_digest;
    expect(await run(listId, THIRD)).toEqual({ ok: true, matched: 2, added: 0, removed: 0, kept: false });
    expect((await listRow(listId)).results_digest).toBe(digest);
  });

  it('diffs in full after results are deleted by other means', async () => {
    const people = await createPeople('Removedson', 4);
    const listId = await createList('Removedson');
    const other = await createList('Removedson');
    await run(listId, FIRST);
    await run(other, FIRST);
    const otherDigest = (await listRow(other)).results_digest;
    expect(otherDigest).not.toBeNull();

    await f.db.query('DELETE FROM list_results WHERE list_id = $1 AND person_id = $2', [listId, people[3]]);
    // Only the digest of the list whose results changed is forgotten.
    expect((await listRow(listId)).results_digest).toBeNull();
    expect((await listRow(other)).results_digest).toBe(otherDigest);
    expect(await run(listId, SECOND)).toEqual({ ok: true, matched: 4, added: 1, removed: 0, kept: false });
    expect(await personIds(listId)).toEqual(people);

    await f.db.query('DELETE FROM list_results WHERE list_id = $1', [listId]);
    expect(await run(listId, THIRD)).toEqual({ ok: true, matched: 4, added: 4, removed: 0, kept: false });
    expect(await personIds(listId)).toEqual(people);
    expect(await listRow(listId)).toMatchObject({ total_people: 4, refreshed_at: '2026-03-03T12:00:00' });
  });

  // On PostgreSQL the run is one transaction: a run that stops rolls back, digest and all.
  it.skipIf(!!process.env.DATABASE_URL)('forgets the digest of a run that stops half-way [embedded]', async () => {
    const people = await createPeople('Halfwayson', 5);
    const listId = await createList('Halfwayson');
    await run(listId, FIRST);
    const before = await results(listId);
    const [late] = await createPeople('Halfwayson', 1);
    // A run that stops after its chunks (each committed on its own, one of them adding `late`), before its last step.
    const query = f.db.query.bind(f.db);
    f.db.query = async (sql: string, params?: unknown[]) => {
      if (sql.includes('results_digest = r.digest')) throw new Error('stopped');
      return query(sql, params as never);
    };
    try {
      await expect(runList(f.db, { organizationId: f.demoId, listId, now: SECOND, chunkPeople: 2 })).rejects.toThrow(
        'stopped',
      );
    } finally {
      f.db.query = query;
    }
    expect(await personIds(listId)).toEqual([...people, late!]);
    expect((await listRow(listId)).results_digest).toBeNull();

    // The same people match as when the last digest was written, but the results differ: a full diff.
    await f.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [late]);
    expect(await run(listId, THIRD)).toEqual({ ok: true, matched: 5, added: 0, removed: 1, kept: false });
    expect(await results(listId)).toEqual(before);
  });
});
