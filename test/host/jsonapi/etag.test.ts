import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeopleFixture, FORBIDDEN_VIEWER, type PeopleFixture } from '../people/people-fixture.ts';

let f: PeopleFixture;
beforeAll(async () => {
  f = await createPeopleFixture();
});
afterAll(() => f.t.close());

const PATH = '/people/v2/notes?per_page=100';

/** A GET with a PAT, the raw body kept as bytes. */
async function get(auth: string, ifNoneMatch?: string, path = PATH) {
  const req = f.t
    .api()
    .get(path)
    .set('Authorization', auth)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  const res = await (ifNoneMatch ? req.set('If-None-Match', ifNoneMatch) : req);
  return { status: res.status, headers: res.headers as Record<string, string | undefined>, body: res.body as Buffer };
}

/** The weak ETag of a body as Express computes it: size in hex and the SHA-1 (base64, 27 characters). */
const weakEtag = (body: Buffer) =>
  `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64').slice(0, 27)}"`;

describe('GET /people/v2/notes (ETag)', () => {
  it('sends a weak ETag over the body and private, no-cache', async () => {
    const res = await get(f.auth.admin);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(weakEtag(res.body));
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers a matching If-None-Match with 304, the same ETag and no body [unchanged]', async () => {
    const first = await get(f.auth.admin);
    const again = await get(f.auth.admin, first.headers.etag);
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    expect(again.headers['content-type']).toBeUndefined();
    expect(again.headers['content-length']).toBeUndefined();
  });

  it('changes the ETag when a note changes, and answers the old one with 200 and the new body [changed]', async () => {
    const before = await get(f.auth.admin);
    const { rows } = await f.db.query<{ id: string }>(
      'SELECT id::text FROM notes WHERE organization_id = $1 ORDER BY id LIMIT 1',
      [f.demoId],
    );
    const edit = await f.t
      .api()
      .patch(`/people/v2/notes/${rows[0]!.id}`)
      .set('Authorization', f.auth.admin)
      .send({ data: { type: 'Note', attributes: { note: 'Changed for the ETag test' } } });
    expect(edit.status).toBe(200);
    const after = await get(f.auth.admin, before.headers.etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).toBe(weakEtag(after.body));
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(JSON.parse(after.body.toString()).data[0].attributes.note).toBe('Changed for the ETag test');
  });

  it("gives another organization's token its own answer, never a 304 for the first one's ETag [tenant]", async () => {
    const demo = await get(f.auth.admin);
    const other = await get(f.auth.other, demo.headers.etag);
    expect(other.status).toBe(200);
    expect(other.headers.etag).toBe(weakEtag(other.body));
    expect(other.headers.etag).not.toBe(demo.headers.etag);
    const body = JSON.parse(other.body.toString()) as { meta: { parent: { id: string } } };
    expect(body.meta.parent.id).toBe(f.otherId);
  });

  it('checks the requester before the ETag: a person without a people role gets 403, not 304 [permission]', async () => {
    const demo = await get(f.auth.admin);
    const refused = await get(f.auth.none, demo.headers.etag);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body.toString())).toEqual(FORBIDDEN_VIEWER);
    expect(refused.headers.etag).not.toBe(demo.headers.etag);
  });

  it('answers a stale ETag on a single note with 200 and a matching one with 304 [single]', async () => {
    const { rows } = await f.db.query<{ id: string }>(
      'SELECT id::text FROM notes WHERE organization_id = $1 ORDER BY id LIMIT 1',
      [f.demoId],
    );
    const path = `/people/v2/notes/${rows[0]!.id}`;
    const first = await get(f.auth.admin, undefined, path);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBe(weakEtag(first.body));
    expect((await get(f.auth.admin, first.headers.etag, path)).status).toBe(304);
    expect((await get(f.auth.admin, 'W/"0-stale"', path)).status).toBe(200);
  });
});
