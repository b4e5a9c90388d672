import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configureBulkmailProvider } from '#host/people/bulkmail-sync.ts';
import { createHttpJsonBulkmailProvider } from '#host/people/http-json-bulkmail-provider.ts';
import { createPeopleFixture, FORBIDDEN_EDITOR, NOT_FOUND, sqlRows, type PeopleFixture } from './people-fixture.ts';

/** A provider endpoint on 127.0.0.1 that records what it receives and answers as told. */
interface Received {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}
let server: Server;
let endpoint: string;
let received: Received[];
let answer: (req: IncomingMessage, res: ServerResponse) => void;

let f: PeopleFixture;
let listId: string;

const one = async (sql: string, params: unknown[]) => (await sqlRows<{ id: string }>(f.db, sql, params))[0]!.id;
const sync = (id: string, auth = f.auth.admin) =>
  f.t.api().post(`/people/v2/lists/${id}/bulkmail_sync`).set('Authorization', auth);
const statusRow = async (id: string) =>
  (
    await sqlRows<Record<string, unknown>>(
      f.db,
      'SELECT status, people_count, synced_people_count, attempts, failed_attempts, last_error, last_synced_at FROM bulkmail_sync_statuses WHERE list_id = $1',
      [id],
    )
  )[0];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: req.method!,
        path: req.url!,
        contentType: req.headers['content-type'],
        body: text ? JSON.parse(text) : undefined,
      });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bulk`;
  f = await createPeopleFixture();
  listId = await one("SELECT id::text FROM lists WHERE organization_id = $1 AND name = 'Women over 40'", [f.demoId]);
  expect((await f.t.api().post(`/people/v2/lists/${listId}/run`).set('Authorization', f.auth.admin)).status).toBe(200);
});
beforeEach(() => {
  received = [];
  answer = (_req, res) => res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
});
afterAll(async () => {
  await f.t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('POST /people/v2/lists/{list_id}/bulkmail_sync', () => {
  it('answers 422 bulkmail_not_configured while the organization has no provider, and records nothing', async () => {
    const res = await sync(listId);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        {
          status: '422',
          code: 'bulkmail_not_configured',
          title: 'Bulk Mail Not Configured',
          detail:
            'No bulk-mail provider is configured for this organization; an administrator must configure one first',
        },
      ],
    });
    expect(await statusRow(listId)).toBeUndefined();
  });

  it('posts the list people as JSON to the configured endpoint and records the success', async () => {
    await configureBulkmailProvider(f.db, f.demoId, { provider: 'http_json', endpointUrl: endpoint });
    const people = await sqlRows<{ id: string; first_name: string; last_name: string; email: string | null }>(
      f.db,
      'SELECT p.id::text, p.first_name, p.last_name, p.email FROM list_results r JOIN people p ON p.id = r.person_id WHERE r.list_id = $1 ORDER BY p.id',
      [listId],
    );
    expect(people.length).toBeGreaterThan(0);
    const res = await sync(listId);
    expect(res.status).toBe(200);
    expect(received).toEqual([
      {
        method: 'POST',
        path: '/bulk',
        contentType: 'application/json',
        body: { list: { id: listId, name: 'Women over 40' }, people },
      },
    ]);
    expect(res.body.data).toMatchObject({
      type: 'BulkmailSyncStatus',
      attributes: {
        provider: 'http_json',
        status: 'synced',
        people_count: people.length,
        synced_people_count: people.length,
        attempts: 1,
        failed_attempts: 0,
        last_error: null,
      },
    });
    expect(res.body.data.attributes.last_synced_at).toBe(res.body.data.attributes.last_attempted_at);
    expect(res.body.meta).toEqual({ parent: { id: listId, type: 'List' } });
    const connected = await f.t
      .api()
      .get('/people/v2/lists?filter=bulkmail_connected')
      .set('Authorization', f.auth.admin);
    expect(connected.body.data.map((d: { id: string }) => d.id)).toEqual([listId]);
  });

  it('records a provider failure, keeps the list results and the last success, and succeeds on retry [retry]', async () => {
    const before = await sqlRows(f.db, 'SELECT person_id FROM list_results WHERE list_id = $1 ORDER BY person_id', [
      listId,
    ]);
    const lastSuccess = (await statusRow(listId))!.last_synced_at;
    answer = (_req, res) => res.writeHead(503).end('busy');
    const failed = await sync(listId);
    expect(failed.status).toBe(200);
    expect(failed.body.data.attributes).toMatchObject({
      status: 'failed',
      attempts: 2,
      failed_attempts: 1,
      last_error: 'The provider answered HTTP 503',
      synced_people_count: before.length,
    });
    expect(await statusRow(listId)).toMatchObject({ status: 'failed', last_synced_at: lastSuccess });
    expect(
      await sqlRows(f.db, 'SELECT person_id FROM list_results WHERE list_id = $1 ORDER BY person_id', [listId]),
    ).toEqual(before);
    const attention = await f.t.api().get('/people/v2/lists?filter=needs_attention').set('Authorization', f.auth.admin);
    expect(attention.body.data.map((d: { id: string }) => d.id)).toContain(listId);

    answer = (_req, res) => res.writeHead(200).end();
    received = [];
    const retried = await sync(listId);
    expect(retried.body.data.attributes).toMatchObject({
      status: 'synced',
      attempts: 3,
      failed_attempts: 0,
      last_error: null,
    });
    expect((received[0]!.body as { people: unknown[] }).people).toHaveLength(before.length);
  });

  it('does not follow a redirect from the provider [ssrf]', async () => {
    answer = (_req, res) => res.writeHead(302, { location: '/elsewhere' }).end();
    const res = await sync(listId);
    expect(res.body.data.attributes).toMatchObject({ status: 'failed', last_error: 'The provider answered HTTP 302' });
    expect(received.map((r) => r.path)).toEqual(['/bulk']);
  });

  it('records an unreachable provider as a failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await configureBulkmailProvider(f.db, f.demoId, {
      provider: 'http_json',
      endpointUrl: `http://127.0.0.1:${port}/gone`,
    });
    const res = await sync(listId);
    expect(res.body.data.attributes).toMatchObject({
      status: 'failed',
      last_error: 'The provider could not be reached',
    });
    await configureBulkmailProvider(f.db, f.demoId, { provider: 'http_json', endpointUrl: endpoint });
  });

  it('refuses viewers and editors who cannot manage the list, and answers 404 for another organization list [permissions, tenant isolation]', async () => {
    const viewer = await sync(listId, f.auth.viewer);
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual(FORBIDDEN_EDITOR);
    expect((await sync(listId, f.auth.editor)).status).toBe(403);
    const other = await one('SELECT id::text FROM lists WHERE organization_id = $1 LIMIT 1', [f.otherId]);
    const res = await sync(other);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect(received).toEqual([]);
  });

  it('tells another organization without a provider that none is configured', async () => {
    const otherList = await one('SELECT id::text FROM lists WHERE organization_id = $1 LIMIT 1', [f.otherId]);
    const res = await sync(otherList, f.auth.other);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('bulkmail_not_configured');
    expect(received).toEqual([]);
  });
});

describe('configureBulkmailProvider()', () => {
  it('refuses endpoints that are not http(s) [ssrf]', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'javascript:alert(1)', 'not a url']) {
      await expect(
        configureBulkmailProvider(f.db, f.demoId, { provider: 'http_json', endpointUrl: url }),
      ).rejects.toThrow('the bulk-mail endpoint must be an http(s) URL');
    }
    await expect(
      f.db.query("UPDATE bulkmail_providers SET endpoint_url = 'file:///etc/passwd' WHERE organization_id = $1", [
        f.demoId,
      ]),
    ).rejects.toThrow();
  });
});

describe('createHttpJsonBulkmailProvider()', () => {
  const request = { organizationId: '1', list: { id: '1', name: 'L' }, people: [] };
  it('reports a timeout as a failure', async () => {
    answer = () => {}; // never answers
    const provider = createHttpJsonBulkmailProvider({ endpointUrl: endpoint, timeoutMs: 50 });
    expect(await provider.sync(request)).toEqual({ ok: false, error: 'The provider did not answer in time' });
  });

  it('never calls a non-http(s) endpoint', async () => {
    let called = false;
    const provider = createHttpJsonBulkmailProvider({
      endpointUrl: 'file:///etc/passwd',
      fetch: () => {
        called = true;
        return Promise.resolve(new Response());
      },
    });
    expect(await provider.sync(request)).toEqual({ ok: false, error: 'The configured endpoint is not an http(s) URL' });
    expect(called).toBe(false);
  });
});
