/**
 * Developer account: the logged-in person's webhook subscriptions — the list, and a form creating one subscription
 * per chosen event for one URL, each new secret shown once. Everything goes through host/webhooks (the tables'
 * owner); a subscription's own page is webhook-subscription-page.tsx.
 */
import { Router } from 'express';
import { Fragment, type VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import type { PersonRecord } from '../auth/person.ts';
import { hasRole } from '../auth/permissions.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { Banner, CsrfField, sendPage, shownTime, Table } from '../pages/render.tsx';
import {
  AVAILABLE_EVENTS,
  createSubscription,
  DELIVERY_URL_RULE,
  isEventName,
  listSubscriptions,
  parseDeliveryUrl,
  type SubscriptionOwner,
  type SubscriptionRow,
} from '../webhooks/index.ts';
import { DeveloperLayout } from './layout.tsx';

/** What the webhook pages need from the host. */
export interface WebhookPagesDeps {
  db: Queryable;
  box: SecretBox;
  /** Wakes this process's delivery worker (a test event, a redelivery). */
  wakeWebhooks?: () => void;
}

/** The owner the pages act for: the logged-in person, in their organization. */
export function ownerOf(person: PersonRecord): SubscriptionOwner {
  return { organizationId: person.organization_id, personId: person.id };
}

/** The available events grouped by resource (`people.v2.events.note.created` → People notes: created). */
function eventGroups(): { label: string; events: { name: string; action: string }[] }[] {
  const groups = new Map<string, { name: string; action: string }[]>();
  for (const name of AVAILABLE_EVENTS) {
    const [product, , , resource, action] = name.split('.');
    const label = `${product![0]!.toUpperCase()}${product!.slice(1)}: ${resource}s`;
    groups.set(label, [...(groups.get(label) ?? []), { name, action: action! }]);
  }
  return [...groups].map(([label, events]) => ({ label, events }));
}

/** Problems of the create form, by field. */
interface CreateProblems {
  url?: string;
  events?: string;
}

/** The secrets of the subscriptions just created, shown this once. */
function CreatedSecrets(props: { created: { name: string; secret: string }[] }): VNode {
  return (
    <section id="created" aria-labelledby="created-title" class="ak-banner ak-banner--success">
      <h2 id="created-title" class="ak-banner-title">
        {props.created.length === 1 ? 'Subscription created' : `${props.created.length} subscriptions created`}
      </h2>
      <p>Copy each secret now: it is shown only once. It keys the signatures of every delivery.</p>
      <dl class="ak-facts">
        {props.created.map((c) => (
          <Fragment key={c.name}>
            <dt class="ak-mono">{c.name}</dt>
            <dd>
              <span class="ak-secret" data-secret-for={c.name}>
                {c.secret}
              </span>
            </dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}

/** The person's subscriptions, each linking to its page. */
function SubscriptionsTable(props: { subscriptions: SubscriptionRow[] }): VNode {
  return props.subscriptions.length ? (
    <Table label="Your webhook subscriptions">
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">URL</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {props.subscriptions.map((s) => (
          <tr key={s.id} data-subscription-id={s.id}>
            <td>
              <a class="ak-mono" href={`/developer/webhooks/${s.id}`}>
                {s.name}
              </a>
            </td>
            <td class="ak-mono">{s.url}</td>
            <td>
              <span class="ak-badge">{s.active ? 'active' : 'inactive'}</span>
            </td>
            <td>{shownTime(s.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  ) : (
    <p class="ak-empty">You have no webhook subscriptions yet.</p>
  );
}

/** The create form: one URL, the events grouped by resource (or why the person may not subscribe). */
function CreateForm(props: {
  person: PersonRecord;
  csrfToken: string;
  values?: { url?: string; events?: string[] } | undefined;
  problems?: CreateProblems | undefined;
}): VNode {
  const mayCreate = hasRole(props.person, 'people', 'viewer');
  const chosen = new Set(props.values?.events ?? []);
  return (
    <section class="ak-card" aria-labelledby="new-subscription">
      <h2 id="new-subscription">New subscription</h2>
      {mayCreate ? (
        <form method="post" action="/developer/webhooks">
          <CsrfField token={props.csrfToken} />
          <div class="ak-field">
            <label for="url">URL</label>
            <input
              id="url"
              type="url"
              name="url"
              required
              value={props.values?.url ?? ''}
              aria-describedby={props.problems?.url ? 'url-hint url-error' : 'url-hint'}
              {...(props.problems?.url ? { 'aria-invalid': 'true' } : {})}
            />
            <p class="ak-hint" id="url-hint">
              Where deliveries are POSTed (http or https).
            </p>
            {props.problems?.url ? (
              <p class="ak-field-error" id="url-error">
                {props.problems.url}
              </p>
            ) : null}
          </div>
          {props.problems?.events ? (
            <p class="ak-field-error" id="events-error">
              {props.problems.events}
            </p>
          ) : null}
          {eventGroups().map((group) => (
            <fieldset
              key={group.label}
              class="ak-field"
              {...(props.problems?.events ? { 'aria-describedby': 'events-error' } : {})}
            >
              <legend>{group.label}</legend>
              {group.events.map((e) => (
                <label class="ak-choice" key={e.name}>
                  <input type="checkbox" name="events" value={e.name} checked={chosen.has(e.name)} />
                  <span>
                    {e.action} <small class="ak-mono">{e.name}</small>
                  </span>
                </label>
              ))}
            </fieldset>
          ))}
          <button type="submit" class="ak-button--primary">
            Create subscription
          </button>
        </form>
      ) : (
        <Banner tone="info">
          <p>Subscribing to People events needs the People viewer role or higher.</p>
        </Banner>
      )}
    </section>
  );
}

/** The list, the create form and (right after creation only) the new secrets. */
export function WebhooksPage(props: {
  person: PersonRecord;
  csrfToken: string;
  subscriptions: SubscriptionRow[];
  created?: { name: string; secret: string }[];
  values?: { url?: string; events?: string[] };
  problems?: CreateProblems;
}): VNode {
  return (
    <DeveloperLayout
      title="Webhooks"
      lede="Changes of People data delivered to your server as signed POST requests, retried until it answers 200."
      person={props.person}
      csrfToken={props.csrfToken}
      tab="webhooks"
    >
      {props.created ? <CreatedSecrets created={props.created} /> : null}
      <SubscriptionsTable subscriptions={props.subscriptions} />
      <CreateForm person={props.person} csrfToken={props.csrfToken} values={props.values} problems={props.problems} />
    </DeveloperLayout>
  );
}

/** The create form's values: a URL and one or more event names. */
function createInput(body: unknown): { url: string; events: string[] } {
  const form = (body ?? {}) as Record<string, unknown>;
  const raw = form.events;
  const events = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
  return { url: typeof form.url === 'string' ? form.url.trim() : '', events };
}

/** Routes under `/developer/webhooks` (behind requireHostLogin). */
export function webhooksPages(deps: WebhookPagesDeps): Router {
  const router = Router();
  router.get('/webhooks', async (req, res) => {
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const person = hostPersonOf(req);
    const subscriptions = await listSubscriptions(deps.db, ownerOf(person));
    sendPage(res, 200, <WebhooksPage person={person} csrfToken={csrfToken} subscriptions={subscriptions} />);
  });
  router.post('/webhooks', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const owner = ownerOf(person);
    const values = createInput(req.body);
    const page = (status: number, extra: Partial<Parameters<typeof WebhooksPage>[0]>) =>
      listSubscriptions(deps.db, owner).then((subscriptions) =>
        sendPage(
          res,
          status,
          <WebhooksPage person={person} csrfToken={csrfToken} subscriptions={subscriptions} {...extra} />,
        ),
      );
    // Deliveries carry People data: only someone who may read it subscribes to it.
    if (!hasRole(person, 'people', 'viewer')) return await page(403, {});
    const url = parseDeliveryUrl(values.url);
    const problems: CreateProblems = {};
    if (url === undefined) problems.url = DELIVERY_URL_RULE.replace(/^url/, 'The URL');
    if (values.events.length === 0) problems.events = 'Choose at least one event';
    else if (!values.events.every(isEventName)) problems.events = 'Choose among the available events';
    if (problems.url || problems.events) return await page(422, { values, problems });
    const created: { name: string; secret: string }[] = [];
    for (const name of new Set(values.events)) {
      const { secret } = await createSubscription(deps.db, deps.box, {
        ...owner,
        applicationId: null,
        name,
        url: url!,
        active: true,
      });
      created.push({ name, secret });
    }
    await page(201, { created });
  });
  return router;
}
