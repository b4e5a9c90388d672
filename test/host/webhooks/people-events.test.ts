import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { FAN_OUT_BATCH } from '#host/webhooks/change-fan-out.ts';
import { AVAILABLE_EVENTS } from '#host/webhooks/event-names.ts';
import { fanOutChanges } from '#host/webhooks/event-store/index.ts';
import { createSubscription } from '#host/webhooks/subscription-store.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createPeopleFixture, sqlRows, type PeopleFixture } from '../people/people-fixture.ts';

let f: PeopleFixture;
let person: string;
let listId: string;

beforeAll(async () => {
  f = await createPeopleFixture();
  person = (
    await sqlRows<{ id: string }>(f.db, 'SELECT id::text FROM people WHERE organization_id = $1 ORDER BY id LIMIT 1', [
      f.demoId,
    ])
  )[0]!.id;
  listId = (
    await sqlRows<{ id: string }>(f.db, 'SELECT id::text FROM lists WHERE organization_id = $1 ORDER BY id LIMIT 1', [
      f.demoId,
    ])
  )[0]!.id;
  const box = createSecretBox([TEST_ENCRYPTION_KEY]);
  for (const name of AVAILABLE_EVENTS)
    await createSubscription(f.db, box, {
      organizationId: f.demoId,
      personId: f.adminId,
      applicationId: null,
      name,
      url: `https://hooks.example.com/${name}`,
      active: true,
    });
});
beforeEach(async () => {
  await forget();
});
afterAll(() => f.t.close());

/** Forgets the changes and events recorded so far. */
async function forget(): Promise<void> {
  await f.db.query('DELETE FROM webhook_changes');
  await f.db.query('DELETE FROM webhook_events');
}

/** The events recorded so far: the changes fanned out first, as the delivery worker does (it is off here). */
async function events(): Promise<{ name: string; payload: any }[]> {
  await fanOutChanges(f.db, FAN_OUT_BATCH);
  const rows = await sqlRows<{ name: string; payload: string }>(
    f.db,
    'SELECT name, payload FROM webhook_events ORDER BY id',
  );
  return rows.map((r) => ({ name: r.name, payload: JSON.parse(r.payload) }));
}

const note = (attributes: Record<string, unknown>) => ({ data: { type: 'Note', attributes } });
const get = (path: string) => f.t.api().get(path).set('Authorization', f.auth.editor);

describe('People writes record webhook events', () => {
  it('records note.created with the note as GET renders it [create]', async () => {
    const res = await f.t
      .api()
      .post(`/people/v2/people/${person}/notes`)
      .set('Authorization', f.auth.editor)
      .send(note({ note: 'Visited on Sunday.' }));
    expect(res.status).toBe(201);
    const read = await get(`/people/v2/notes/${res.body.data.id}`);
    expect(await events()).toEqual([{ name: 'people.v2.events.note.created', payload: read.body }]);
  });

  it('records note.updated with the note after the change [update]', async () => {
    const created = await f.t
      .api()
      .post(`/people/v2/people/${person}/notes`)
      .set('Authorization', f.auth.editor)
      .send(note({ note: 'First.' }));
    await forget();
    const res = await f.t
      .api()
      .patch(`/people/v2/notes/${created.body.data.id}`)
      .set('Authorization', f.auth.editor)
      .send(note({ note: 'Second.' }));
    expect(res.status).toBe(200);
    const read = await get(`/people/v2/notes/${created.body.data.id}`);
    const recorded = await events();
    expect(recorded).toEqual([{ name: 'people.v2.events.note.updated', payload: read.body }]);
    expect(recorded[0]!.payload.data.attributes.note).toBe('Second.');
  });

  it('records note.destroyed with the note as it was [delete]', async () => {
    const created = await f.t
      .api()
      .post(`/people/v2/people/${person}/notes`)
      .set('Authorization', f.auth.editor)
      .send(note({ note: 'Soon gone.' }));
    const before = await get(`/people/v2/notes/${created.body.data.id}`);
    await forget();
    const res = await f.t.api().delete(`/people/v2/notes/${created.body.data.id}`).set('Authorization', f.auth.editor);
    expect(res.status).toBe(204);
    expect(await events()).toEqual([{ name: 'people.v2.events.note.destroyed', payload: before.body }]);
    const again = await f.t
      .api()
      .delete(`/people/v2/notes/${created.body.data.id}`)
      .set('Authorization', f.auth.editor);
    expect(again.status).toBe(404);
    expect(await events()).toHaveLength(1);
  });

  it('records nothing, and keeps no note, when the write rolls back [rollback]', async () => {
    // A deferred trigger fails the transaction at commit, after the note and its event were written in it.
    await f.db.exec(`
      CREATE FUNCTION fail_marked_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.payload LIKE '%ROLLBACK-ME%' THEN RAISE EXCEPTION 'the write fails at commit'; END IF;
        RETURN NULL;
      END $$;
      CREATE CONSTRAINT TRIGGER fail_marked_event AFTER INSERT ON webhook_changes
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_marked_event();`);
    try {
      const notesBefore = await sqlRows<{ n: number }>(f.db, 'SELECT count(*)::int AS n FROM notes');
      const res = await f.t
        .api()
        .post(`/people/v2/people/${person}/notes`)
        .set('Authorization', f.auth.editor)
        .send(note({ note: 'ROLLBACK-ME' }));
      expect(res.status).toBe(500);
      expect(await sqlRows(f.db, 'SELECT count(*)::int AS n FROM notes')).toEqual(notesBefore);
      expect(await sqlRows(f.db, "SELECT id FROM notes WHERE note = 'ROLLBACK-ME'")).toEqual([]);
      expect(await events()).toEqual([]);
    } finally {
      await f.db.exec('DROP TRIGGER fail_marked_event ON webhook_changes; DROP FUNCTION fail_marked_event();');
    }
  });

  it('records list.updated when the list changes, and nothing for a star alone [list update]', async () => {
    const res = await f.t
      .api()
      .patch(`/people/v2/lists/${listId}`)
      .set('Authorization', f.auth.admin)
      .send({ data: { type: 'List', attributes: { description: 'Changed by a test' } } });
    expect(res.status).toBe(200);
    const recorded = await events();
    expect(recorded.map((e) => e.name)).toEqual(['people.v2.events.list.updated']);
    const { data } = recorded[0]!.payload;
    expect(data).toMatchObject({ type: 'List', id: listId });
    // The requester's own star and views are not part of the event.
    expect(data.attributes).toEqual({ ...res.body.data.attributes, starred: false, recently_viewed: false });
    await forget();
    const starred = await f.t
      .api()
      .patch(`/people/v2/lists/${listId}`)
      .set('Authorization', f.auth.admin)
      .send({ data: { type: 'List', attributes: { starred: true } } });
    expect(starred.status).toBe(200);
    expect(await events()).toEqual([]);
  });

  it('records list.run when a run changes the results, and nothing when it does not [list run]', async () => {
    const run = () => f.t.api().post(`/people/v2/lists/${listId}/run`).set('Authorization', f.auth.admin);
    expect((await run()).status).toBe(200);
    await forget();
    // Unchanged results: no event.
    expect((await run()).status).toBe(200);
    expect(await events()).toEqual([]);
    // A result removed behind the list's back: the next run adds it again, a changed result.
    await f.db.query(
      'DELETE FROM list_results WHERE list_id = $1 AND person_id = (SELECT min(person_id) FROM list_results WHERE list_id = $1)',
      [listId],
    );
    await f.db.query('UPDATE lists SET results_digest = NULL WHERE id = $1', [listId]);
    const res = await run();
    expect(res.status).toBe(200);
    const recorded = await events();
    expect(recorded.map((e) => e.name)).toEqual(['people.v2.events.list.run']);
    expect(recorded[0]!.payload.data.attributes.total_people).toBe(res.body.data.attributes.total_people);
  });
});
