/**
 * The developer account's webhook pages over HTTP: the list and create form (one subscription per chosen event, each
 * secret shown once), a subscription's page (activate, deactivate, rotate the secret, send a test event, delete,
 * events filtered by status), an event's page (deliveries, redeliver, ignore) — statuses, bodies and the database
 * after each, CSRF, the People role, and another person's or organization's subscription as 404. The host runs its
 * delivery worker; test events reach real receivers on loopback.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { parseForms, TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.ts';

let t: HttpTestHost;
let receiver: WebhookReceiver;
/** Answers 200 with a body over 4 KiB (kept truncated). */
let talkative: WebhookReceiver;
const LONG_BODY = 'x'.repeat(5000);

beforeAll(async () => {
  receiver = await startReceiver();
  talkative = await startReceiver(() => ({ status: 200, body: LONG_BODY }));
  t = await startHttpTestHost({ config: { webhookPollIntervalMs: 50, webhookRetryScale: 0.000001 } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await talkative?.close();
});

async function loggedIn(email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}

const csrfOf = (page: PageResponse) => parseForms(page.body).find((f) => f.fields._csrf)!.fields._csrf!;
const formWith = (page: PageResponse, suffix: string) =>
  parseForms(page.body).findIndex((f) => f.action.endsWith(suffix));
const secretsOf = (page: PageResponse) =>
  Object.fromEntries([...page.body.matchAll(/data-secret-for="([^"]+)">([^<]+)</g)].map((m) => [m[1]!, m[2]!]));

/** Posts the create form with repeated `events` fields (a browser's checkboxes). */
async function createForm(browser: TestBrowser, pairs: [string, string][]): Promise<PageResponse> {
  const list = await browser.request('/developer/webhooks');
  const body = new URLSearchParams([['_csrf', csrfOf(list)], ...pairs]);
  const response = await fetch(`${t.baseUrl}/developer/webhooks`, {
    method: 'POST',
    headers: {
      cookie: browser.jar.header('/developer/webhooks'),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
    },
    body: body.toString(),
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, body: await response.text(), url: list.url };
}

interface SubscriptionState {
  id: string;
  name: string;
  url: string;
  active: boolean;
  person: string;
  previous: string | null;
}
async function subscriptionsOf(email: string): Promise<SubscriptionState[]> {
  const { rows } = await t.db.query<SubscriptionState>(
    `SELECT s.id::text, s.name, s.url, s.active, s.person_id::text AS person, s.previous_secret AS previous
     FROM webhook_subscriptions s JOIN people p ON p.id = s.person_id WHERE p.email = $1 ORDER BY s.id`,
    [email],
  );
  return rows;
}
async function eventsOf(subscriptionId: string) {
  const { rows } = await t.db.query<{ id: string; uuid: string; status: string; attempts: number; name: string }>(
    'SELECT id::text, uuid::text, status, attempts, name FROM webhook_events WHERE subscription_id = $1 ORDER BY id',
    [subscriptionId],
  );
  return rows;
}

/** Creates one subscription as `email` through the page; returns its id and secret. */
async function subscribe(email: string, url: string, event = 'people.v2.events.note.created') {
  const browser = await loggedIn(email);
  const created = await createForm(browser, [
    ['url', url],
    ['events', event],
  ]);
  expect(created.status).toBe(201);
  const subscription = (await subscriptionsOf(email)).at(-1)!;
  return { browser, id: subscription.id, secret: secretsOf(created)[event]! };
}

describe('/developer/webhooks', () => {
  it('lists nothing at first, links the tab, and offers the available events grouped by resource', async () => {
    const page = await (await loggedIn('editor@demo.test')).request('/developer/webhooks');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<a href="/developer/webhooks" aria-current="page">Webhooks</a>');
    expect(page.body).toContain('You have no webhook subscriptions yet.');
    expect([...page.body.matchAll(/<legend>([^<]+)<\/legend>/g)].map((m) => m[1])).toEqual([
      'People: notes',
      'People: lists',
    ]);
    expect([...page.body.matchAll(/name="events" value="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'people.v2.events.note.created',
      'people.v2.events.note.updated',
      'people.v2.events.note.destroyed',
      'people.v2.events.list.updated',
      'people.v2.events.list.run',
    ]);
    const overview = await (await loggedIn('editor@demo.test')).request('/developer');
    expect(overview.body).toContain('<a class="ak-tile" href="/developer/webhooks">');
  });

  it('creates one subscription per chosen event, each secret shown once', async () => {
    const browser = await loggedIn('member@demo.test');
    const created = await createForm(browser, [
      ['url', 'https://hooks.example.com/in'],
      ['events', 'people.v2.events.note.created'],
      ['events', 'people.v2.events.list.updated'],
    ]);
    expect(created.status).toBe(201);
    expect(created.body).toContain('2 subscriptions created');
    const secrets = secretsOf(created);
    expect(Object.keys(secrets)).toEqual(['people.v2.events.note.created', 'people.v2.events.list.updated']);
    for (const secret of Object.values(secrets)) expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const member = await personId(t.db, 'member@demo.test');
    expect((await subscriptionsOf('member@demo.test')).map(({ id: _, ...s }) => s)).toEqual([
      {
        name: 'people.v2.events.note.created',
        url: 'https://hooks.example.com/in',
        active: true,
        person: member,
        previous: null,
      },
      {
        name: 'people.v2.events.list.updated',
        url: 'https://hooks.example.com/in',
        active: true,
        person: member,
        previous: null,
      },
    ]);
    // Sealed at rest; listed afterwards without the secrets.
    const { rows } = await t.db.query<{ sealed: string }>(
      'SELECT authenticity_secret AS sealed FROM webhook_subscriptions WHERE person_id = $1',
      [member],
    );
    for (const row of rows) expect(Object.values(secrets)).not.toContain(row.sealed);
    const again = await browser.request('/developer/webhooks');
    expect(again.body).toContain('https://hooks.example.com/in');
    for (const secret of Object.values(secrets)) expect(again.body).not.toContain(secret);
    expect(again.body).not.toContain('whsec_');
  });

  it('answers 422 with the problems of the form and creates nothing', async () => {
    const browser = await loggedIn('editor@demo.test');
    const before = (await subscriptionsOf('editor@demo.test')).length;
    const cases: { pairs: [string, string][]; errors: string[] }[] = [
      {
        pairs: [['url', 'ftp://hooks.example.com/']],
        errors: [
          '<p class="ak-field-error" id="url-error">The URL must be an absolute http or https URL without credentials</p>',
          '<p class="ak-field-error" id="events-error">Choose at least one event</p>',
        ],
      },
      {
        pairs: [
          ['url', 'https://user:pw@hooks.example.com/'],
          ['events', 'people.v2.events.note.created'],
        ],
        errors: ['id="url-error">The URL must be an absolute http or https URL without credentials</p>'],
      },
      {
        pairs: [
          ['url', 'https://hooks.example.com/'],
          ['events', 'people.v2.events.person.created'],
        ],
        errors: ['<p class="ak-field-error" id="events-error">Choose among the available events</p>'],
      },
    ];
    for (const c of cases) {
      const res = await createForm(browser, c.pairs);
      expect(res.status).toBe(422);
      for (const error of c.errors) expect(res.body).toContain(error);
    }
    expect(await subscriptionsOf('editor@demo.test')).toHaveLength(before);
  });

  it('refuses a post without the CSRF token [CSRF]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const res = await browser.request('/developer/webhooks', {
      form: { url: 'https://sneaky.example.com/', events: 'people.v2.events.note.created' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toContain('This form has expired');
    const { rows } = await t.db.query("SELECT 1 FROM webhook_subscriptions WHERE url LIKE 'https://sneaky%'");
    expect(rows).toHaveLength(0);
  });
});

describe('/developer/webhooks/:id', () => {
  it('deactivates and activates the subscription (303, the database follows; 422 for a bad value)', async () => {
    const { browser, id } = await subscribe('editor@demo.test', receiver.url);
    let page = await browser.request(`/developer/webhooks/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<span class="ak-badge" data-field="active">active</span>');
    const off = await browser.submit(page, {}, { formIndex: formWith(page, '/active') });
    expect(off.status).toBe(303);
    expect(off.location).toBe(`${t.baseUrl}/developer/webhooks/${id}`);
    expect((await subscriptionsOf('editor@demo.test')).find((s) => s.id === id)!.active).toBe(false);
    page = await browser.request(`/developer/webhooks/${id}`);
    expect(page.body).toContain('<span class="ak-badge" data-field="active">inactive</span>');
    // Nothing would be sent: a test event is refused while inactive.
    const test = await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    expect(test.status).toBe(422);
    expect(test.body).toContain('The subscription is inactive: activate it before sending a test event.');
    expect(await eventsOf(id)).toEqual([]);
    const on = await browser.submit(page, {}, { formIndex: formWith(page, '/active') });
    expect(on.status).toBe(303);
    expect((await subscriptionsOf('editor@demo.test')).find((s) => s.id === id)!.active).toBe(true);
    const bad = await browser.submit(page, { active: 'maybe' }, { formIndex: formWith(page, '/active') });
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('Say whether to activate or deactivate.');
  });

  it('rotates the secret, showing the new one once; the API and deliveries use it', async () => {
    const { browser, id, secret } = await subscribe('editor@demo.test', receiver.url);
    const page = await browser.request(`/developer/webhooks/${id}`);
    expect(page.body).not.toContain(secret);
    const rotated = await browser.submit(page, {}, { formIndex: formWith(page, '/rotate-secret') });
    expect(rotated.status).toBe(200);
    const fresh = /data-field="secret">([^<]+)</.exec(rotated.body)![1]!;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(rotated.body).toContain('The previous secret keeps signing too for 24 hours.');
    expect((await subscriptionsOf('editor@demo.test')).find((s) => s.id === id)!.previous).not.toBeNull();
    expect((await browser.request(`/developer/webhooks/${id}`)).body).not.toContain(fresh);
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'editor@demo.test'), 'rotation check');
    const api = await t.api().get(`/webhooks/v2/webhook_subscriptions/${id}`).auth(token.client_id, token.secret);
    expect(api.status).toBe(200);
    expect(api.body.data.attributes.authenticity_secret).toBe(fresh);
  });

  it('sends a test event through the outbox: delivered signed, shown with its delivery', async () => {
    const { browser, id, secret } = await subscribe('editor@demo.test', receiver.url, 'people.v2.events.list.run');
    const page = await browser.request(`/developer/webhooks/${id}`);
    expect(page.body).toContain('No events yet.');
    const seen = receiver.received.length;
    const sent = await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    expect(sent.status).toBe(303);
    const [event] = await eventsOf(id);
    expect(sent.location).toBe(`${t.baseUrl}/developer/webhooks/${id}?sent=${event!.id}`);
    expect(event!.name).toBe('people.v2.events.list.run');
    await receiver.waitFor(seen + 1);
    const got = receiver.received.find((r) => r.delivery.id === event!.uuid)!;
    expect(got.delivery.name).toBe('people.v2.events.list.run');
    expect(JSON.parse(got.delivery.payload)).toEqual({
      data: { type: 'WebhookSubscription', id, attributes: { name: 'people.v2.events.list.run' } },
      included: [],
      meta: { test: true, sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    await expect.poll(async () => (await eventsOf(id))[0]!.status).toBe('delivered');

    const shown = await browser.request(`/developer/webhooks/${id}?sent=${event!.id}`);
    expect(shown.body).toContain(`<a href="/developer/webhooks/${id}/events/${event!.id}">see its deliveries</a>`);
    expect(shown.body).toMatch(
      new RegExp(`data-event-id="${event!.id}"><td><a href="[^"]+"><span class="ak-badge">delivered</span>`),
    );
    const eventPage = await browser.request(`/developer/webhooks/${id}/events/${event!.id}`);
    expect(eventPage.status).toBe(200);
    expect(eventPage.body).toContain('<span class="ak-badge" data-field="status">delivered</span>');
    expect(eventPage.body).toContain('<span data-field="response_status">HTTP 200</span>');
    expect(eventPage.body).toContain(`webhook-id: ${event!.uuid}`);
    expect(eventPage.body).toContain('Content-Type: application/json');
    expect(eventPage.body).toContain('<pre class="ak-code" data-field="response_body">ok</pre>');
    expect(eventPage.body).not.toContain('data-field="response_truncated"');
    // The request body as sent, escaped in the page.
    expect(eventPage.body).toContain(got.body.replaceAll('"', '&quot;').slice(0, 60));
  });

  it('filters the events by status; an unknown status is 400', async () => {
    const { browser, id } = await subscribe('editor@demo.test', receiver.url);
    const page = await browser.request(`/developer/webhooks/${id}`);
    await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    await expect.poll(async () => (await eventsOf(id))[0]?.status).toBe('delivered');
    const delivered = await browser.request(`/developer/webhooks/${id}?status=delivered`);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toContain('<option value="delivered" selected>delivered</option>');
    expect([...delivered.body.matchAll(/data-event-id="(\d+)"/g)].map((m) => m[1])).toEqual([
      (await eventsOf(id))[0]!.id,
    ]);
    const failed = await browser.request(`/developer/webhooks/${id}?status=failed`);
    expect(failed.status).toBe(200);
    expect(failed.body).toContain('No failed events.');
    expect(failed.body).not.toContain('data-event-id=');
    const unknown = await browser.request(`/developer/webhooks/${id}?status=bogus`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain('There is no event status “bogus”.');
  });

  it('deletes the subscription with its events (303)', async () => {
    const { browser, id } = await subscribe('editor@demo.test', receiver.url);
    const page = await browser.request(`/developer/webhooks/${id}`);
    await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    const deleted = await browser.submit(page, {}, { formIndex: formWith(page, '/delete') });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`${t.baseUrl}/developer/webhooks`);
    expect((await subscriptionsOf('editor@demo.test')).map((s) => s.id)).not.toContain(id);
    expect(await eventsOf(id)).toEqual([]);
    expect((await browser.request(`/developer/webhooks/${id}`)).status).toBe(404);
  });
});

describe('/developer/webhooks/:id/events/:event', () => {
  it('shows a truncated response, redelivers (one more attempt) and refuses to ignore a delivered event', async () => {
    const { browser, id } = await subscribe('editor@demo.test', talkative.url);
    const page = await browser.request(`/developer/webhooks/${id}`);
    await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    await expect.poll(async () => (await eventsOf(id))[0]?.status).toBe('delivered');
    const [event] = await eventsOf(id);
    const eventPage = await browser.request(`/developer/webhooks/${id}/events/${event!.id}`);
    expect(eventPage.body).toContain(
      '<span class="ak-badge">truncated</span> Only the first 4 KiB of the body are kept.',
    );
    expect(eventPage.body).toContain(`data-field="response_body">${'x'.repeat(4096)}</pre>`);
    const redelivered = await browser.submit(eventPage, {}, { formIndex: formWith(eventPage, '/redeliver') });
    expect(redelivered.status).toBe(303);
    expect(redelivered.location).toBe(`${t.baseUrl}/developer/webhooks/${id}/events/${event!.id}`);
    await expect
      .poll(async () => {
        const [e] = await eventsOf(id);
        return [e!.status, e!.attempts];
      })
      .toEqual(['delivered', 2]);
    const twice = await browser.request(`/developer/webhooks/${id}/events/${event!.id}`);
    expect([...twice.body.matchAll(/<h3 id="delivery-\d+">Attempt (\d)/g)].map((m) => m[1])).toEqual(['2', '1']);
    const ignored = await browser.submit(twice, {}, { formIndex: formWith(twice, '/ignore') });
    expect(ignored.status).toBe(422);
    expect(ignored.body).toContain('only a pending, failed, skipped or duplicated event can be ignored');
    expect((await eventsOf(id))[0]!.status).toBe('delivered');
  });

  it('ignores a failing event and shows why no response came', async () => {
    // Nothing listens on port 1: every attempt is `unreachable`.
    const { browser, id } = await subscribe('editor@demo.test', 'http://127.0.0.1:1/hooks');
    const page = await browser.request(`/developer/webhooks/${id}`);
    await browser.submit(page, {}, { formIndex: formWith(page, '/test') });
    await expect.poll(async () => (await eventsOf(id))[0]?.attempts ?? 0).toBeGreaterThan(0);
    const [event] = await eventsOf(id);
    // The attempt is counted when it is claimed; its delivery row is written once it has ended.
    const unreachable = '<span data-field="response_status">no response (unreachable)</span>';
    await expect
      .poll(async () => (await browser.request(`/developer/webhooks/${id}/events/${event!.id}`)).body)
      .toContain(unreachable);
    const eventPage = await browser.request(`/developer/webhooks/${id}/events/${event!.id}`);
    expect(eventPage.body).toContain(unreachable);
    const ignored = await browser.submit(eventPage, {}, { formIndex: formWith(eventPage, '/ignore') });
    expect(ignored.status).toBe(303);
    expect((await eventsOf(id))[0]!.status).toBe('ignored_failed');
  });
});

describe('another person’s or organization’s subscription [isolation]', () => {
  it('is 404 on every page and action, and nothing changes', async () => {
    const { browser: owner, id } = await subscribe('editor@demo.test', receiver.url);
    const ownPage = await owner.request(`/developer/webhooks/${id}`);
    await owner.submit(ownPage, {}, { formIndex: formWith(ownPage, '/test') });
    const [event] = await eventsOf(id);
    for (const email of ['admin@demo.test', 'admin@other.test']) {
      const browser = await loggedIn(email);
      const csrf = csrfOf(await browser.request('/developer/webhooks'));
      expect((await browser.request(`/developer/webhooks/${id}`)).status).toBe(404);
      expect((await browser.request(`/developer/webhooks/${id}/events/${event!.id}`)).status).toBe(404);
      for (const action of ['active', 'rotate-secret', 'test', 'delete', `events/${event!.id}/ignore`]) {
        const res = await browser.request(`/developer/webhooks/${id}/${action}`, {
          form: { _csrf: csrf, active: 'false' },
        });
        expect(res.status, `${email} ${action}`).toBe(404);
        expect(res.body).toContain('That webhook subscription does not exist.');
      }
      expect((await browser.request('/developer/webhooks')).body).not.toContain(`data-subscription-id="${id}"`);
    }
    const [after] = (await subscriptionsOf('editor@demo.test')).filter((s) => s.id === id);
    expect([after!.active, after!.previous]).toEqual([true, null]);
    expect(await eventsOf(id)).toHaveLength(1);
    // An id that is no id, and an event of another subscription of the owner, are 404 too.
    expect((await owner.request('/developer/webhooks/not-a-number')).status).toBe(404);
    const other = await subscribe('editor@demo.test', receiver.url);
    expect((await owner.request(`/developer/webhooks/${other.id}/events/${event!.id}`)).status).toBe(404);
  });
});

describe('a person without a People role', () => {
  it('is told so and may not subscribe (403)', async () => {
    const member = await personId(t.db, 'member@demo.test');
    const { rows } = await t.db.query<{ role: string }>(
      "DELETE FROM person_product_roles WHERE person_id = $1 AND product = 'people' RETURNING role",
      [member],
    );
    try {
      const browser = await loggedIn('member@demo.test');
      const page = await browser.request('/developer/webhooks');
      expect(page.body).toContain('Subscribing to People events needs the People viewer role or higher.');
      expect(formWith(page, '/developer/webhooks')).toBe(-1);
      const before = (await subscriptionsOf('member@demo.test')).length;
      const res = await createForm(browser, [
        ['url', 'https://hooks.example.com/no-role'],
        ['events', 'people.v2.events.note.created'],
      ]);
      expect(res.status).toBe(403);
      expect(await subscriptionsOf('member@demo.test')).toHaveLength(before);
    } finally {
      await t.db.query("INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, 'people', $2)", [
        member,
        rows[0]!.role,
      ]);
    }
  });
});
