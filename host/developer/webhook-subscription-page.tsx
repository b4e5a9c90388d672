/**
 * Developer account: one of the person's webhook subscriptions — what it is, activate or deactivate it, rotate its
 * secret (the new one shown once), send a test event through the outbox, delete it — and its events, newest first,
 * filtered by status. Another person's or organization's subscription is 404. Each event's page (its deliveries,
 * redeliver, ignore) is webhook-event-page.tsx.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import { ValidationError } from '../errors.ts';
import { Banner, CsrfField, sendMessagePage, sendPage, shownTime, Table } from '../pages/render.tsx';
import {
  deleteSubscription,
  EVENT_STATUSES,
  findSubscription,
  listEvents,
  rotateSubscriptionSecret,
  sendTestEvent,
  setSubscriptionActive,
  type EventSummary,
  type SubscriptionRow,
} from '../webhooks/index.ts';
import { DeveloperLayout } from './layout.tsx';
import { ownerOf, type WebhookPagesDeps } from './webhooks-page.tsx';

/** Events shown on a subscription's page (the newest). */
const EVENTS_SHOWN = 100;

/** An id of the path as the tables know them (digits), else undefined: anything else is simply not found. */
export function pathNumber(value: unknown): string | undefined {
  return typeof value === 'string' && /^[1-9][0-9]{0,17}$/.test(value) ? value : undefined;
}

/** The logged-in person's subscription of the path, or undefined (a 404 page has been sent). */
export async function subscriptionOfPath(
  deps: WebhookPagesDeps,
  req: Request,
  res: Response,
): Promise<SubscriptionRow | undefined> {
  const id = pathNumber(req.params.id);
  const subscription = id ? await findSubscription(deps.db, ownerOf(hostPersonOf(req)), id) : undefined;
  if (!subscription) sendMessagePage(res, 404, 'Not found', 'That webhook subscription does not exist.');
  return subscription;
}

/** What the subscription is, and what may be done to it. */
function SubscriptionCard(props: { subscription: SubscriptionRow; csrfToken: string }): VNode {
  const s = props.subscription;
  const base = `/developer/webhooks/${s.id}`;
  return (
    <section class="ak-card" aria-labelledby="subscription-title">
      <h2 id="subscription-title">Subscription</h2>
      <dl class="ak-facts">
        <dt>Event</dt>
        <dd class="ak-mono">{s.name}</dd>
        <dt>URL</dt>
        <dd class="ak-mono">{s.url}</dd>
        <dt>Status</dt>
        <dd>
          <span class="ak-badge" data-field="active">
            {s.active ? 'active' : 'inactive'}
          </span>
        </dd>
        <dt>Created</dt>
        <dd>{shownTime(s.created_at)}</dd>
      </dl>
      <div class="ak-actions">
        <form method="post" action={`${base}/test`}>
          <CsrfField token={props.csrfToken} />
          <button type="submit" class="ak-button--primary" disabled={!s.active}>
            Send a test event
          </button>
        </form>
        <form method="post" action={`${base}/active`}>
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="active" value={s.active ? 'false' : 'true'} />
          <button type="submit">{s.active ? 'Deactivate' : 'Activate'}</button>
        </form>
        <form method="post" action={`${base}/rotate-secret`}>
          <CsrfField token={props.csrfToken} />
          <button type="submit">Rotate secret</button>
        </form>
        <form method="post" action={`${base}/delete`}>
          <CsrfField token={props.csrfToken} />
          <button type="submit" class="ak-button--danger">
            Delete
          </button>
        </form>
      </div>
    </section>
  );
}

/** The subscription's newest events, with the status filter. */
function EventsSection(props: {
  subscription: SubscriptionRow;
  events: EventSummary[];
  status?: string | undefined;
}): VNode {
  const base = `/developer/webhooks/${props.subscription.id}`;
  return (
    <>
      <h2 id="events-title">Events</h2>
      <form method="get" action={base} class="ak-inline-form">
        <div class="ak-field">
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="" selected={!props.status}>
              any
            </option>
            {EVENT_STATUSES.map((status) => (
              <option key={status} value={status} selected={props.status === status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      {props.events.length ? (
        <Table label="Events">
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col" class="ak-num">
                Attempts
              </th>
            </tr>
          </thead>
          <tbody>
            {props.events.map((e) => (
              <tr key={e.id} data-event-id={e.id}>
                <td>
                  <a href={`${base}/events/${e.id}`}>
                    <span class="ak-badge">{e.status}</span>
                  </a>
                </td>
                <td class="ak-mono">{e.name}</td>
                <td>{shownTime(e.created_at)}</td>
                <td class="ak-num">{e.attempts}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p class="ak-empty">{props.status ? `No ${props.status} events.` : 'No events yet.'}</p>
      )}
    </>
  );
}

/** The subscription's page. */
export function SubscriptionPage(props: {
  person: PersonRecord;
  csrfToken: string;
  subscription: SubscriptionRow;
  events: EventSummary[];
  status?: string | undefined;
  /** The new secret, right after a rotation only. */
  secret?: string;
  /** The test event just sent. */
  sent?: string | undefined;
  error?: string;
}): VNode {
  const s = props.subscription;
  const base = `/developer/webhooks/${s.id}`;
  return (
    <DeveloperLayout
      title={s.name}
      lede={`Delivered to ${s.url}`}
      person={props.person}
      csrfToken={props.csrfToken}
      tab="webhooks"
    >
      <p>
        <a href="/developer/webhooks">All webhook subscriptions</a>
      </p>
      {props.secret ? (
        <section id="created" aria-labelledby="rotated-title" class="ak-banner ak-banner--success">
          <h2 id="rotated-title" class="ak-banner-title">
            New secret
          </h2>
          <p>Copy it now: it is shown only once. The previous secret keeps signing too for 24 hours.</p>
          <span class="ak-secret" data-field="secret">
            {props.secret}
          </span>
        </section>
      ) : null}
      {props.sent ? (
        <Banner tone="success" id="sent">
          <p>
            Test event sent: <a href={`${base}/events/${props.sent}`}>see its deliveries</a>.
          </p>
        </Banner>
      ) : null}
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      <SubscriptionCard subscription={s} csrfToken={props.csrfToken} />
      <EventsSection subscription={s} events={props.events} status={props.status} />
    </DeveloperLayout>
  );
}

/** Renders the subscription's page with its events (optionally one status). */
async function show(
  deps: WebhookPagesDeps,
  req: Request,
  res: Response,
  status: number,
  subscription: SubscriptionRow,
  extra: { secret?: string; error?: string; filter?: string; sent?: string } = {},
): Promise<void> {
  const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
  const events = await listEvents(deps.db, subscription.id, { status: extra.filter, limit: EVENTS_SHOWN });
  sendPage(
    res,
    status,
    <SubscriptionPage
      person={hostPersonOf(req)}
      csrfToken={csrfToken}
      subscription={subscription}
      events={events}
      status={extra.filter}
      {...(extra.secret ? { secret: extra.secret } : {})}
      {...(extra.error ? { error: extra.error } : {})}
      sent={extra.sent}
    />,
  );
}

/** Routes under `/developer/webhooks/:id` (behind requireHostLogin). */
export function webhookSubscriptionPages(deps: WebhookPagesDeps): Router {
  const router = Router();

  router.get('/webhooks/:id', async (req, res) => {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return;
    const filter = typeof req.query.status === 'string' && req.query.status !== '' ? req.query.status : undefined;
    if (filter !== undefined && !(EVENT_STATUSES as readonly string[]).includes(filter))
      return await show(deps, req, res, 400, subscription, { error: `There is no event status “${filter}”.` });
    const sent = pathNumber(req.query.sent);
    await show(deps, req, res, 200, subscription, { ...(filter ? { filter } : {}), ...(sent ? { sent } : {}) });
  });

  router.post('/webhooks/:id/active', requireCsrf, async (req, res) => {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return;
    const value = (req.body as Record<string, unknown> | undefined)?.active;
    if (value !== 'true' && value !== 'false')
      return await show(deps, req, res, 422, subscription, { error: 'Say whether to activate or deactivate.' });
    await setSubscriptionActive(deps.db, ownerOf(hostPersonOf(req)), subscription.id, value === 'true');
    res.redirect(303, `/developer/webhooks/${subscription.id}`);
  });

  router.post('/webhooks/:id/rotate-secret', requireCsrf, async (req, res) => {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return;
    const secret = await rotateSubscriptionSecret(deps.db, deps.box, ownerOf(hostPersonOf(req)), subscription.id);
    if (secret === undefined)
      return sendMessagePage(res, 404, 'Not found', 'That webhook subscription does not exist.');
    await show(deps, req, res, 200, subscription, { secret });
  });

  router.post('/webhooks/:id/test', requireCsrf, async (req, res) => {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return;
    try {
      const event = await sendTestEvent(deps.db, subscription);
      deps.wakeWebhooks?.();
      res.redirect(303, `/developer/webhooks/${subscription.id}?sent=${event.id}`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      await show(deps, req, res, 422, subscription, {
        error: 'The subscription is inactive: activate it before sending a test event.',
      });
    }
  });

  router.post('/webhooks/:id/delete', requireCsrf, async (req, res) => {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return;
    await deleteSubscription(deps.db, ownerOf(hostPersonOf(req)), subscription.id);
    res.redirect(303, '/developer/webhooks');
  });

  return router;
}
