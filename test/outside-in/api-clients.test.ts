/**
 * The host as the community's API clients meet it: a host listening on a real socket, spoken to with the
 * exact requests of pypco 1.2.0 (Python) and Planning Center's JavaScript client 3.1.0 (see the
 * emulations in test/support/pypco-client.ts and pco-js-client.ts), asserting what those clients read.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { personId } from '../support/host.ts';
import { TestBrowser } from '../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens } from '../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { PcoApiClient } from '../support/pco-js-client.ts';
import { KeyError, PCORequestException, Pypco } from '../support/pypco-client.ts';

let t: HttpTestHost;
let demoId: string;
let adminId: string;
let editorId: string;
let pat: { client_id: string; secret: string };
let peopleToken: string;
/** What reached the host, as the host saw it. */
const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

const NOT_FOUND = {
  errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
};
/** A version string as Planning Center's products use them; the JavaScript client sends what its caller configured. */
const PCO_VERSION = '2023-02-15';

const ids = async (sql: string, params: unknown[] = []) =>
  (await t.db.query<{ id: string }>(sql, params)).rows.map((r) => r.id);

beforeAll(async () => {
  t = await startHttpTestHost({
    prepend: (outer) =>
      outer.use((req, _res, next) => {
        seen.push({ method: req.method, url: req.originalUrl, headers: req.headers });
        next();
      }),
  });
  demoId = (await ids("SELECT id::text FROM organizations WHERE slug = 'demo'"))[0]!;
  adminId = await personId(t.db, 'admin@demo.test');
  editorId = await personId(t.db, 'editor@demo.test');
  pat = await createPersonalAccessToken(t.db, adminId, 'pypco script');
  const config = await discoverClient(t.baseUrl, await createTestApplication(t.db, { name: 'JS Client App' }));
  peopleToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people', email: 'editor@demo.test' }))
    .access_token;
});
afterAll(() => t.close());

describe('pypco 1.2.0 (PCO(application_id, secret), User-Agent pypco)', () => {
  const pco = () => new Pypco({ api_base: t.baseUrl, application_id: pat.client_id, secret: pat.secret });

  it('iterates every note page by offset until links has no next, reading included on each page [iterate, no include]', async () => {
    const client = pco();
    const expected = await ids('SELECT n.id::text FROM notes n WHERE n.organization_id = $1 ORDER BY n.id', [demoId]);
    const got: string[] = [];
    for await (const record of client.iterate('/people/v2/notes')) {
      expect(record.included).toEqual([]);
      expect(record.meta).toEqual({ parent: { id: demoId, type: 'Organization' } });
      got.push(record.data.id);
    }
    expect(got).toEqual(expected);
    expect(client.requests).toHaveLength(Math.ceil(expected.length / 25));
    expect(client.requests[1]).toEqual({ method: 'GET', url: `${t.baseUrl}/people/v2/notes?offset=25&per_page=25` });
  });

  it('iterates every list, two per page, with a where[] parameter too [iterate]', async () => {
    const client = pco();
    const lists: string[] = [];
    for await (const record of client.iterate('/people/v2/lists', { per_page: 2 })) lists.push(record.data.id);
    expect(lists).toEqual(
      await ids('SELECT l.id::text FROM lists l WHERE l.organization_id = $1 ORDER BY l.id', [demoId]),
    );
    const [category] = await ids(
      "SELECT id::text FROM note_categories WHERE organization_id = $1 AND name = 'Pastoral Care'",
      [demoId],
    );
    const inCategory: string[] = [];
    for await (const record of client.iterate('/people/v2/notes', {
      per_page: 100,
      'where[note_category_id]': category!,
    }))
      inCategory.push(record.data.id);
    expect(inCategory).toEqual(
      await ids(
        'SELECT n.id::text FROM notes n WHERE n.organization_id = $1 AND n.note_category_id = $2 ORDER BY n.id',
        [demoId, category],
      ),
    );
    expect(client.requests.at(-1)!.url).toMatch(/\?offset=\d+&per_page=100&where%5Bnote_category_id%5D=\d+$/);
  });

  it('gets the current person from /people/v2/me and /current/v2/me, with included present [get]', async () => {
    for (const path of ['/people/v2/me', '/current/v2/me']) {
      const me = await pco().get(path);
      expect(me).toMatchObject({
        data: { id: adminId, type: 'Person' },
        included: [],
        meta: { parent: { id: demoId, type: 'Organization' } },
      });
    }
    const last = seen.filter((r) => r.url === '/current/v2/me').at(-1)!;
    expect(last.headers['user-agent']).toBe('pypco');
    expect(last.headers.authorization).toBe(
      `Basic ${Buffer.from(`${pat.client_id}:${pat.secret}`).toString('base64')}`,
    );
  });

  it('creates, updates and deletes a note with template() payloads [post, patch, delete]', async () => {
    const client = pco();
    const payload = Pypco.template('Note', { note: 'Called on Tuesday — all well.' });
    payload.data.relationships = { person: { data: { type: 'Person', id: editorId } } };
    const created = (await client.post(`/people/v2/people/${editorId}/notes`, payload))!;
    expect(created).toMatchObject({
      data: {
        type: 'Note',
        attributes: { note: 'Called on Tuesday — all well.', person_id: editorId, created_by_id: adminId },
      },
      included: [],
    });
    const updated = (await client.patch(
      `/people/v2/notes/${created.data.id}`,
      Pypco.template('Note', { note: 'Called twice.' }),
    ))!;
    expect(updated.data.attributes.note).toBe('Called twice.');
    const deleted = await client.delete(`/people/v2/notes/${created.data.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(await ids('SELECT id::text FROM notes WHERE id = $1', [created.data.id])).toEqual([]);
  });

  it('runs a list with post() and no payload, which sends no body at all [post, action]', async () => {
    const [list] = await ids('SELECT l.id::text FROM lists l WHERE l.organization_id = $1 ORDER BY l.id LIMIT 1', [
      demoId,
    ]);
    const ran = (await pco().post(`/people/v2/lists/${list}/run`))!;
    expect(ran).toMatchObject({ data: { id: list, type: 'List', attributes: { status: 'complete' } }, included: [] });
    expect(seen.at(-1)!.headers['content-length']).toBeUndefined();
  });

  it('raises PCORequestException whose response_body parses to the error envelope [404, 422]', async () => {
    const missing = await pco()
      .get('/people/v2/notes/999999999')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PCORequestException);
    const notFound = missing as PCORequestException;
    expect(notFound.status_code).toBe(404);
    expect(notFound.message).toBe(`404 Client Error: Not Found for url: ${t.baseUrl}/people/v2/notes/999999999`);
    expect(JSON.parse(notFound.response_body)).toEqual(NOT_FOUND);

    const payload = Pypco.template('Note', { note: 'Elsewhere.' });
    payload.data.relationships = { person: { data: { type: 'Person', id: adminId } } };
    const refused = (await pco()
      .post(`/people/v2/people/${editorId}/notes`, payload)
      .catch((e: unknown) => e)) as PCORequestException;
    expect(refused.status_code).toBe(422);
    expect(refused.message).toBe(
      `422 Client Error: Unprocessable Entity for url: ${t.baseUrl}/people/v2/people/${editorId}/notes`,
    );
    const [error] = JSON.parse(refused.response_body).errors;
    expect(error).toEqual({
      status: '422',
      title: 'Validation Error',
      detail: `person must be the person of the path (${editorId}); to move a note, PATCH /people/v2/notes/{id}`,
      source: { parameter: 'person' },
      meta: { resource: 'Note', associated_resources: [] },
    });
    const forbidden = (await pco()
      .post(`/people/v2/people/${editorId}/notes`, Pypco.template('Note', { note: 'x', person_id: editorId }))
      .catch((e: unknown) => e)) as PCORequestException;
    expect(JSON.parse(forbidden.response_body)).toEqual({
      errors: [
        {
          status: '422',
          title: 'Forbidden Attribute',
          detail: 'person_id cannot be assigned',
          source: { parameter: 'person_id' },
        },
      ],
    });
  });

  it('would stop with KeyError on a page without included: the emulation reads it as pypco does [self-check]', async () => {
    // Guards the emulation itself: were `included` dropped, iterate() must fail the way pypco does.
    const client = pco();
    const original = client.get.bind(client);
    client.get = async (url, params) => {
      const body = (await original(url, params))!;
      delete body.included;
      return body;
    };
    await expect(client.iterate('/people/v2/notes').next()).rejects.toBeInstanceOf(KeyError);
  });
});

describe('@planningcenter/api-client 3.1.0 (Bearer token, X-PCO-API-Version)', () => {
  const people = () =>
    new PcoApiClient({
      root: `${t.baseUrl}/people/v2`,
      version: PCO_VERSION,
      defaultHeaders: { Authorization: `Bearer ${peopleToken}` },
    });

  it('walks links.next to the end of the notes, concatenating included of every page [walk, no include]', async () => {
    const client = people();
    const res = (await client.get({
      url: '/notes',
      data: { walk: true, fields: { Note: ['note', 'person_id', 'person'] } },
    }))!;
    const expected = await ids('SELECT n.id::text FROM notes n WHERE n.organization_id = $1 ORDER BY n.id', [demoId]);
    expect(res.data.map((n: { id: number }) => n.id)).toEqual(expected.map(Number));
    expect(res.data[0]).toEqual({
      id: Number(expected[0]),
      type: 'Note',
      links: { self: `${t.baseUrl}/people/v2/notes/${expected[0]}` },
      // The client spreads attributes over the relationship keys: the person_id attribute (a string) wins.
      personId: expect.stringMatching(/^\d+$/),
      personType: 'Person',
      note: expect.any(String),
      person: null,
    });
    // concatRecords keeps the last page's meta.
    const lastOffset = (Math.ceil(expected.length / 100) - 1) * 100;
    expect(lastOffset).toBeGreaterThan(0);
    expect(res.meta).toEqual({
      totalCount: expected.length,
      count: expected.length - lastOffset,
      prev: { offset: lastOffset - 100 },
      parent: { id: demoId, type: 'Organization' },
    });
    expect(client.requests.map((r) => r.url)).toEqual(
      Array.from({ length: Math.ceil(expected.length / 100) }, (_, page) =>
        page === 0
          ? `${t.baseUrl}/people/v2/notes?fields%5BNote%5D=note%2Cperson_id%2Cperson&per_page=100`
          : `${t.baseUrl}/people/v2/notes?per_page=100&fields%5BNote%5D=note%2Cperson_id%2Cperson&offset=${page * 100}`,
      ),
    );
    for (const request of seen.slice(-client.requests.length)) {
      expect(request.headers).toMatchObject({
        'x-pco-api-version': PCO_VERSION,
        'x-csrf-token': 'TEST_TOKEN',
        'content-type': 'application/json;charset=UTF-8',
        authorization: `Bearer ${peopleToken}`,
      });
    }
  });

  it('walks the lists two per page and reads the current person [walk, me]', async () => {
    const lists = (await people().get({
      url: '/lists',
      data: { walk: true, perPage: 2, fields: { List: ['name'] } },
    }))!;
    expect(lists.data.map((l: { id: number }) => String(l.id))).toEqual(
      await ids('SELECT l.id::text FROM lists l WHERE l.organization_id = $1 ORDER BY l.id', [demoId]),
    );
    const me = (await people().get({ url: '/me', data: { fields: { Person: ['first_name', 'last_name'] } } }))!;
    expect(me.data).toMatchObject({ id: Number(editorId), type: 'Person', firstName: 'Eden', lastName: 'Editor' });
    expect(me.meta).toEqual({ parent: { id: demoId, type: 'Organization' } });
  });

  it('creates with fields beside data in the body, updates, and deletes with a {} body [post, patch, delete]', async () => {
    const client = people();
    const created = (await client.post({
      url: `/people/${editorId}/notes`,
      data: {
        fields: { Note: 'note' },
        data: {
          type: 'Note',
          attributes: { note: 'From the browser.' },
          relationships: { person: { data: { type: 'Person', id: editorId } } },
        },
      },
    }))!;
    expect(created.data).toMatchObject({
      type: 'Note',
      note: 'From the browser.',
      personId: editorId,
      createdById: editorId,
      personType: 'Person',
    });
    const patched = (await client.patch({
      url: `/notes/${created.data.id}`,
      data: { data: { type: 'Note', attributes: { note: 'Edited.' } } },
    }))!;
    expect(patched.data.note).toBe('Edited.');
    expect(await client.delete({ url: `/notes/${created.data.id}` })).toBeUndefined();
    expect(client.requests.at(-1)).toMatchObject({ method: 'DELETE', body: '{}' });
    expect(await ids('SELECT id::text FROM notes WHERE id = $1', [String(created.data.id)])).toEqual([]);
  });

  it('rejects with the parsed error body [404, 422]', async () => {
    await expect(people().get({ url: '/notes/999999999', data: { fields: { Note: ['note'] } } })).rejects.toEqual(
      NOT_FOUND,
    );
    await expect(
      people().post({ url: `/people/${editorId}/notes`, data: { data: { type: 'Note', attributes: { note: '  ' } } } }),
    ).rejects.toEqual({
      errors: [
        {
          status: '422',
          title: 'Validation Error',
          detail: "note can't be blank",
          source: { parameter: 'note' },
          meta: { resource: 'Note', associated_resources: [] },
        },
      ],
    });
  });

  it('is answered whatever X-PCO-API-Version says, on every API; /api/v2 answers its own latest version [version header]', async () => {
    const authorization = `Basic ${Buffer.from(`${pat.client_id}:${pat.secret}`).toString('base64')}`;
    for (const version of [PCO_VERSION, 'not-a-version']) {
      const api = new PcoApiClient({
        root: `${t.baseUrl}/api/v2`,
        version,
        defaultHeaders: { Authorization: authorization },
      });
      const tokens = (await api.get({
        url: '/personal_access_tokens',
        data: { walk: true, perPage: 1, fields: { PersonalAccessToken: ['name'] } },
      }))!;
      expect(tokens.data.map((d: { name: string }) => d.name)).toContain('pypco script');
      const current = new PcoApiClient({
        root: `${t.baseUrl}/current/v2`,
        version,
        defaultHeaders: { Authorization: authorization },
      });
      expect((await current.get({ url: '/me', data: { fields: { Person: ['first_name'] } } }))!.data).toMatchObject({
        id: Number(adminId),
        firstName: 'Alex',
      });
    }
    const res = await fetch(`${t.baseUrl}/api/v2`, {
      headers: { authorization, 'user-agent': 'check', 'x-pco-api-version': 'not-a-version' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-api-version')).toBe('2025-09-30');
  });

  it('would fail to walk pages without included: the emulation concatenates as the client does [self-check]', async () => {
    const client = people();
    const request = (
      client as unknown as { makeRequest: (...a: unknown[]) => Promise<Record<string, unknown>> }
    ).makeRequest.bind(client);
    (client as unknown as { makeRequest: unknown }).makeRequest = async (...a: unknown[]) => {
      const body = await request(...a);
      delete body.included;
      return body;
    };
    await expect(
      client.get({ url: '/notes', data: { walk: true, perPage: 100, fields: { Note: ['note'] } } }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
