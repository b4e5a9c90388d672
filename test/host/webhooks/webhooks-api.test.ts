import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { TEST_BASE_URL, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { createOpenApiValidator, type OpenApiValidator } from '../../support/openapi.ts';

let t: TestHost;
let validator: OpenApiValidator;
let admin: string;
let editor: string;
let other: string;
let demoId: string;

beforeAll(async () => {
  t = await createTestHost();
  const doc = await t.api().get('/webhooks/v2/open_api');
  expect(doc.status).toBe(200);
  validator = createOpenApiValidator(doc.body);
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  editor = await basicAuthFor(t.db, 'editor@demo.test');
  other = await basicAuthFor(t.db, 'admin@other.test');
  demoId = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
});
afterAll(() => t.close());

/** A request to the webhooks API, its response checked against the served OpenAPI document. */
async function call(method: 'get' | 'post' | 'patch' | 'delete', path: string, auth: string, body?: unknown) {
  let req = t.api()[method](path).set('Authorization', auth);
  if (body !== undefined) req = req.send(body as object);
  const res = await req;
  if (res.status !== 204)
    validator.check({
      method: method.toUpperCase(),
      url: path,
      status: res.status,
      body: res.body,
      headers: res.headers,
    });
  return res;
}

const subscription = (attributes: Record<string, unknown>) => ({ data: { type: 'WebhookSubscription', attributes } });
const NOT_FOUND = {
  errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
};

async function create(auth = admin, name = 'people.v2.events.note.created', url = 'https://hooks.example.com/in') {
  const res = await call('post', '/webhooks/v2/webhook_subscriptions', auth, subscription({ name, url, active: true }));
  expect(res.status).toBe(201);
  return res.body.data as { id: string; attributes: Record<string, unknown> };
}

describe('GET /webhooks/v2/available_events', () => {
  it('lists every event name with paging', async () => {
    const res = await call('get', '/webhooks/v2/available_events?per_page=2', admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: '1',
        type: 'AvailableEvent',
        attributes: {
          name: 'people.v2.events.note.created',
          product: 'people',
          resource: 'note',
          action: 'created',
          version: 'v2',
        },
        links: { self: `${TEST_BASE_URL}/webhooks/v2/available_events/1` },
      },
      {
        id: '2',
        type: 'AvailableEvent',
        attributes: {
          name: 'people.v2.events.note.updated',
          product: 'people',
          resource: 'note',
          action: 'updated',
          version: 'v2',
        },
        links: { self: `${TEST_BASE_URL}/webhooks/v2/available_events/2` },
      },
    ]);
    expect(res.body.meta).toMatchObject({ total_count: 5, count: 2, next: { offset: 2 } });
  });

  it('answers 403 without a User-Agent', async () => {
    const res = await t.api().get('/webhooks/v2/available_events').set('Authorization', admin).set('User-Agent', '');
    expect(res.status).toBe(403);
  });
});

describe('POST /webhooks/v2/webhook_subscriptions', () => {
  it('creates an active subscription with a whsec_ secret and answers 201 with a Location', async () => {
    const res = await call(
      'post',
      '/webhooks/v2/webhook_subscriptions',
      admin,
      subscription({ name: 'people.v2.events.note.created', url: 'https://hooks.example.com/in' }),
    );
    expect(res.status).toBe(201);
    const { id, attributes } = res.body.data;
    expect(res.headers.location).toBe(`${TEST_BASE_URL}/webhooks/v2/webhook_subscriptions/${id}`);
    expect(attributes).toEqual({
      name: 'people.v2.events.note.created',
      url: 'https://hooks.example.com/in',
      active: true,
      authenticity_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      application_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: attributes.created_at,
    });
    // Stored sealed, never in clear.
    const { rows } = await t.db.query<{ authenticity_secret: string; person_id: string; organization_id: string }>(
      'SELECT authenticity_secret, person_id::text, organization_id::text FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    expect(rows[0]!.authenticity_secret).not.toContain(attributes.authenticity_secret.slice(6));
    expect(rows[0]).toMatchObject({ person_id: await personId(t.db, 'admin@demo.test'), organization_id: demoId });
  });

  it('refuses an unknown event name [invalid_enum_value]', async () => {
    const res = await call(
      'post',
      '/webhooks/v2/webhook_subscriptions',
      admin,
      subscription({ name: 'people.v2.events.person.created', url: 'https://hooks.example.com/in' }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: '422', source: { parameter: 'name' } });
  });

  it('refuses a URL that is not http(s) [422]', async () => {
    const res = await call(
      'post',
      '/webhooks/v2/webhook_subscriptions',
      admin,
      subscription({ name: 'people.v2.events.note.created', url: 'file:///etc/passwd' }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      status: '422',
      title: 'Validation Error',
      detail: 'url must be an absolute http or https URL without credentials',
      source: { parameter: 'url' },
    });
  });

  it('refuses an attribute that cannot be assigned [authenticity_secret]', async () => {
    const res = await call(
      'post',
      '/webhooks/v2/webhook_subscriptions',
      admin,
      subscription({ name: 'people.v2.events.note.created', url: 'https://h.example.com/', authenticity_secret: 'x' }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: '422', title: 'Forbidden Attribute' });
  });
});

describe('/webhooks/v2/webhook_subscriptions/{id}', () => {
  it('reads, deactivates and deletes one of your subscriptions', async () => {
    const created = await create();
    const path = `/webhooks/v2/webhook_subscriptions/${created.id}`;
    const read = await call('get', path, admin);
    expect(read.status).toBe(200);
    expect(read.body.data.attributes).toEqual(created.attributes);
    const off = await call('patch', path, admin, subscription({ active: false }));
    expect(off.status).toBe(200);
    expect(off.body.data.attributes.active).toBe(false);
    const renamed = await call('patch', path, admin, subscription({ url: 'https://elsewhere.example.com/' }));
    expect(renamed.status).toBe(422);
    expect(renamed.body.errors[0]).toMatchObject({ title: 'Forbidden Attribute' });
    const deleted = await call('delete', path, admin);
    expect(deleted.status).toBe(204);
    expect((await call('get', path, admin)).status).toBe(404);
  });

  it("answers 404 for another person's or another organization's subscription", async () => {
    const created = await create();
    const path = `/webhooks/v2/webhook_subscriptions/${created.id}`;
    for (const auth of [editor, other]) {
      for (const [method, body] of [
        ['get', undefined],
        ['patch', subscription({ active: false })],
        ['delete', undefined],
      ] as const) {
        const res = await call(method, path, auth, body);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
      expect((await call('post', `${path}/rotate_secret`, auth)).body).toEqual(NOT_FOUND);
      expect((await call('get', `${path}/events`, auth)).body).toEqual(NOT_FOUND);
    }
    const list = await call('get', '/webhooks/v2/webhook_subscriptions', other);
    expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(created.id);
    expect((await call('get', path, admin)).status).toBe(200);
  });

  it('rotates the secret: a new one, the previous kept signing for 24 hours', async () => {
    const created = await create();
    const res = await call('post', `/webhooks/v2/webhook_subscriptions/${created.id}/rotate_secret`, admin);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.authenticity_secret).toMatch(/^whsec_/);
    expect(res.body.data.attributes.authenticity_secret).not.toBe(created.attributes.authenticity_secret);
    const { rows } = await t.db.query<{ hours: number }>(
      'SELECT round(extract(epoch FROM previous_secret_until - now()) / 3600)::int AS hours FROM webhook_subscriptions WHERE id = $1',
      [created.id],
    );
    expect(rows).toEqual([{ hours: 24 }]);
  });

  it('filters by where[application_id]', async () => {
    await create();
    const res = await call('get', '/webhooks/v2/webhook_subscriptions?where[application_id]=1', admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.can_query_by).toEqual(['application_id']);
  });
});

describe('/webhooks/v2/webhook_subscriptions/{id}/events', () => {
  async function eventOf(
    subscriptionId: string,
    status: string,
    attempts: number,
  ): Promise<{ id: string; uuid: string }> {
    const { rows } = await t.db.query<{ id: string; uuid: string }>(
      `INSERT INTO webhook_events (organization_id, subscription_id, name, payload, status, attempts)
       VALUES ($1, $2, 'people.v2.events.note.created', '{"data":{}}', $3, $4) RETURNING id::text, uuid::text`,
      [demoId, subscriptionId, status, attempts],
    );
    return rows[0]!;
  }

  it('lists events with where[status] and where[uuid], each with its deliveries', async () => {
    const s = await create();
    const failed = await eventOf(s.id, 'failed', 17);
    const delivered = await eventOf(s.id, 'delivered', 1);
    await t.db.query(
      `INSERT INTO webhook_deliveries (event_id, attempt, request_url, request_headers, request_body, response_status,
         response_headers, response_body, started_at, duration_ms)
       VALUES ($1, 1, 'https://hooks.example.com/in', '[["Content-Type","application/json"]]', '{}', 200, '{"server":"x"}', 'ok', now(), 12)`,
      [delivered.id],
    );
    const base = `/webhooks/v2/webhook_subscriptions/${s.id}/events`;
    const all = await call('get', base, admin);
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual([failed.id, delivered.id]);
    expect(all.body.data[1]).toMatchObject({
      type: 'Event',
      attributes: {
        uuid: delivered.uuid,
        status: 'delivered',
        payload: '{"data":{}}',
        attempts: 1,
        next_attempt_at: null,
      },
      relationships: {
        subscription: { data: { type: 'WebhookSubscription', id: s.id } },
        person: { data: { type: 'Person', id: await personId(t.db, 'admin@demo.test') } },
      },
    });
    const byStatus = await call('get', `${base}?where[status]=failed`, admin);
    expect(byStatus.body.data.map((e: { id: string }) => e.id)).toEqual([failed.id]);
    const byUuid = await call('get', `${base}?where[uuid]=${delivered.uuid}`, admin);
    expect(byUuid.body.data.map((e: { id: string }) => e.id)).toEqual([delivered.id]);
    const newestFirst = await call('get', `${base}?order=-created_at`, admin);
    expect(newestFirst.status).toBe(200);
    const deliveries = await call('get', `${base}/${delivered.id}/deliveries`, admin);
    expect(deliveries.body.data).toEqual([
      {
        id: expect.any(String),
        type: 'Delivery',
        attributes: {
          attempt: 1,
          request_url: 'https://hooks.example.com/in',
          request_headers: { 'Content-Type': 'application/json' },
          request_body: '{}',
          response_status: 200,
          response_headers: { server: 'x' },
          response_body: 'ok',
          response_truncated: false,
          error: null,
          started_at: expect.any(String),
          duration_ms: 12,
        },
        relationships: { event: { data: { type: 'Event', id: delivered.id } } },
        links: { self: `${TEST_BASE_URL}${base}/${delivered.id}/deliveries/${deliveries.body.data[0].id}` },
      },
    ]);
    const one = await call('get', `${base}/${delivered.id}/deliveries/${deliveries.body.data[0].id}`, admin);
    expect(one.status).toBe(200);
    expect((await call('get', `${base}/${failed.id}/deliveries/${deliveries.body.data[0].id}`, admin)).status).toBe(
      404,
    );
    expect((await call('get', `${base}/${delivered.id}`, other)).status).toBe(404);
  });

  it('ignores a failed event and refuses to ignore a delivered one', async () => {
    const s = await create();
    const failed = await eventOf(s.id, 'failed', 17);
    const delivered = await eventOf(s.id, 'delivered', 1);
    const base = `/webhooks/v2/webhook_subscriptions/${s.id}/events`;
    const res = await call('post', `${base}/${failed.id}/ignore`, admin);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.status).toBe('ignored_failed');
    const refused = await call('post', `${base}/${delivered.id}/ignore`, admin);
    expect(refused.status).toBe(422);
    expect((await call('post', `${base}/${failed.id}/ignore`, other)).status).toBe(404);
  });

  it('redelivers a failed event (pending, due now) and refuses while the subscription is inactive', async () => {
    const s = await create();
    const failed = await eventOf(s.id, 'failed', 17);
    const base = `/webhooks/v2/webhook_subscriptions/${s.id}/events`;
    const res = await call('post', `${base}/${failed.id}/redeliver`, admin);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ status: 'pending', attempts: 17 });
    expect(res.body.data.attributes.next_attempt_at).toEqual(expect.any(String));
    await call('patch', `/webhooks/v2/webhook_subscriptions/${s.id}`, admin, subscription({ active: false }));
    const refused = await call('post', `${base}/${failed.id}/redeliver`, admin);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].detail).toBe('the subscription is inactive; activate it before redelivering');
  });
});

describe('/webhooks/v2 [Bearer]', () => {
  let h: HttpTestHost;
  let webhooksToken: string;
  let peopleToken: string;
  let applicationId: string;
  beforeAll(async () => {
    h = await startHttpTestHost();
    const app = await createTestApplication(h.db, { name: 'Hook Client' });
    applicationId = String(app.id);
    const config = await discoverClient(h.baseUrl, app);
    webhooksToken = (await obtainTokens(new TestBrowser(h.baseUrl), config, { scope: 'webhooks' })).access_token;
    peopleToken = (await obtainTokens(new TestBrowser(h.baseUrl), config, { scope: 'people' })).access_token;
  });
  afterAll(() => h.close());

  const bearer = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'user-agent': TEST_USER_AGENT, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('creates a subscription as the application acting for the person [webhooks scope]', async () => {
    const res = await bearer(
      'POST',
      '/webhooks/v2/webhook_subscriptions',
      webhooksToken,
      subscription({ name: 'people.v2.events.list.updated', url: 'https://hooks.example.com/lists' }),
    );
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.data.attributes.application_id).toBe(applicationId);
    const filtered = await bearer(
      'GET',
      `/webhooks/v2/webhook_subscriptions?where[application_id]=${applicationId}`,
      webhooksToken,
    );
    expect((await filtered.json()).data.map((s: { id: string }) => s.id)).toEqual([body.data.id]);
  });

  it('answers 403 to a token without the webhooks scope', async () => {
    const res = await bearer('GET', '/webhooks/v2/webhook_subscriptions', peopleToken);
    expect(res.status).toBe(403);
    expect((await res.json()).errors[0].meta).toEqual({
      description: 'This request needs an access token with the webhooks scope',
    });
  });
});

describe('X-PCO-Webhooks-Authenticity', () => {
  it('is the hex HMAC-SHA256 of the raw body keyed with the secret as written', async () => {
    const { authenticitySignature } = await import('#host/webhooks/sign-delivery.ts');
    expect(authenticitySignature('whsec_abc', '{"a":1}')).toBe(
      createHmac('sha256', 'whsec_abc').update('{"a":1}').digest('hex'),
    );
  });
});
