import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runList } from '#host/people/run-list.ts';
import { createPeopleFixture, sqlRows, type PeopleFixture } from './people-fixture.ts';

type Rule = [attribute: string, operator: string, value: string];

let f: PeopleFixture;
beforeAll(async () => {
  f = await createPeopleFixture();
});
afterAll(() => f.t.close());

const NOW = new Date('2026-03-01T12:00:00Z');

async function createList(rules: Rule[]): Promise<string> {
  const [list] = await sqlRows<{ id: string }>(
    f.db,
    "INSERT INTO lists (organization_id, name, subset) VALUES ($1, 'Chunks', 'all') RETURNING id::text",
    [f.demoId],
  );
  await setRules(list!.id, rules);
  return list!.id;
}

async function setRules(listId: string, rules: Rule[]): Promise<void> {
  await f.db.query('DELETE FROM list_rules WHERE list_id = $1', [listId]);
  for (const [i, [attribute, operator, value]] of rules.entries()) {
    await f.db.query(
      'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
      [listId, attribute, operator, value, i],
    );
  }
}

/** Result person ids of a list, read with plain SQL. */
async function results(listId: string): Promise<string[]> {
  const rows = await sqlRows<{ person_id: string }>(
    f.db,
    'SELECT person_id::text FROM list_results WHERE list_id = $1 ORDER BY person_id',
    [listId],
  );
  return rows.map((r) => r.person_id);
}

/** The ids the rules find, by plain SQL written for the test (active people of the organization). */
async function expected(condition: string): Promise<string[]> {
  const rows = await sqlRows<{ id: string }>(
    f.db,
    `SELECT id::text FROM people WHERE organization_id = $1 AND status = 'active' AND ${condition} ORDER BY id`,
    [f.demoId],
  );
  return rows.map((r) => r.id);
}

const OLD: Rule[] = [['first_name', 'contains', 'a']];
const OLD_SQL = "strpos(lower(first_name), 'a') > 0";
const NEW: Rule[] = [['last_name', 'contains', 'e']];
const NEW_SQL = "strpos(lower(last_name), 'e') > 0";

describe('runList()', () => {
  it('finds the same results in chunks of a few people as in one pass, with exact added and removed counts [chunks]', async () => {
    const listId = await createList(OLD);
    const first = await runList(f.db, { organizationId: f.demoId, listId, now: NOW, chunkPeople: 7 });
    const old = await expected(OLD_SQL);
    expect(old.length).toBeGreaterThan(20);
    expect(first).toEqual({ ok: true, matched: old.length, added: old.length, removed: 0, kept: false });
    expect(await results(listId)).toEqual(old);

    await setRules(listId, NEW);
    const next = await runList(f.db, { organizationId: f.demoId, listId, now: NOW, chunkPeople: 7 });
    const now = await expected(NEW_SQL);
    const added = now.filter((id) => !old.includes(id)).length;
    const removed = old.filter((id) => !now.includes(id)).length;
    expect(added).toBeGreaterThan(0);
    expect(removed).toBeGreaterThan(0);
    expect(next).toEqual({ ok: true, matched: now.length, added, removed, kept: false });
    expect(await results(listId)).toEqual(now);
    const [list] = await sqlRows<{ total_people: number; status: string }>(
      f.db,
      'SELECT total_people, status FROM lists WHERE id = $1',
      [listId],
    );
    expect(list).toEqual({ total_people: now.length, status: 'complete' });

    // The same again in one pass: nothing to add or remove.
    expect(await runList(f.db, { organizationId: f.demoId, listId, now: NOW })).toEqual({
      ok: true,
      matched: now.length,
      added: 0,
      removed: 0,
      kept: false,
    });
    expect(await results(listId)).toEqual(now);
  });

  it('serves other queries during a run; a reader sees each person’s previous or new result, and the previous counts until the end [concurrent reader]', async () => {
    const listId = await createList(OLD);
    await runList(f.db, { organizationId: f.demoId, listId, now: NOW });
    const old = await expected(OLD_SQL);
    await setRules(listId, NEW);
    const now = await expected(NEW_SQL);

    let done = false;
    const running = runList(f.db, {
      organizationId: f.demoId,
      listId,
      now: new Date('2026-03-02T12:00:00Z'),
      chunkPeople: 7,
    }).then((outcome) => {
      done = true;
      return outcome;
    });
    const seen: { ids: string[]; total: number; during: boolean }[] = [];
    while (!done) {
      // Readers come from the event loop, as requests do (PGlite answers within microtasks).
      await new Promise((resolve) => setImmediate(resolve));
      const ids = await results(listId);
      const [list] = await sqlRows<{ total_people: number }>(f.db, 'SELECT total_people FROM lists WHERE id = $1', [
        listId,
      ]);
      seen.push({ ids, total: list!.total_people, during: !done });
      if (seen.length > 10_000) throw new Error('the run does not end');
    }
    expect((await running).ok).toBe(true);
    expect(await results(listId)).toEqual(now);

    const during = seen.filter((s) => s.during);
    const both = old.filter((id) => now.includes(id));
    const either = new Set([...old, ...now]);
    for (const s of during) {
      // Never someone neither run finds, never someone both find missing.
      expect(s.ids.filter((id) => !either.has(id))).toEqual([]);
      expect(both.filter((id) => !s.ids.includes(id))).toEqual([]);
    }
    if (f.db.kind === 'pglite') {
      // Chunks commit one by one: some reader saw the run half done, with the previous run's count.
      expect(during.length).toBeGreaterThan(0);
      const mixed = during.filter((s) => s.ids.join() !== old.join() && s.ids.join() !== now.join());
      expect(mixed.length).toBeGreaterThan(0);
      for (const s of mixed) expect(s.total).toBe(old.length);
    } else {
      // One transaction: readers on other connections see the previous results, or (after the commit) the new ones.
      // (The run may also end before the first reader: PostgreSQL does not wait for this process.)
      for (const s of seen) expect([old.join(), now.join()]).toContain(s.ids.join());
    }
  });

  it('takes a deleted person out of every list, and a deleted list’s results with it [cascade]', async () => {
    const listId = await createList(OLD);
    const other = await createList(OLD);
    await runList(f.db, { organizationId: f.demoId, listId, now: NOW });
    await runList(f.db, { organizationId: f.demoId, listId: other, now: NOW });
    const old = await expected(OLD_SQL);
    const gone = old.find((id) => ![f.adminId, f.editorId, f.memberId].includes(id))!;
    // Rows pointing at the person from elsewhere go first (their own foreign keys).
    await f.db.query('DELETE FROM notes WHERE person_id = $1 OR created_by_id = $1', [gone]);
    await f.db.query('DELETE FROM people WHERE id = $1', [gone]);
    const without = old.filter((id) => id !== gone);
    expect(await results(listId)).toEqual(without);
    expect(await results(other)).toEqual(without);

    await f.db.query('DELETE FROM lists WHERE id = $1', [listId]);
    expect(await results(listId)).toEqual([]);
    expect(await results(other)).toEqual(without);
  });
});
