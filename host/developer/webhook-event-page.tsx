/**
 * Developer account: one event of one of the person's webhook subscriptions — its status and payload, redeliver and
 * ignore, and every delivery (attempt): the request sent (headers, body) and the response received (status,
 * headers, body, whether it was truncated) or why none came. Another person's subscription or event is 404.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import { ValidationError } from '../errors.ts';
import { Banner, CsrfField, sendMessagePage, sendPage, shownTime } from '../pages/render.tsx';
import {
  ignoreEvent,
  listDeliveries,
  listEvents,
  redeliverEvent,
  type DeliveryRecord,
  type EventSummary,
  type SubscriptionRow,
} from '../webhooks/index.ts';
import { DeveloperLayout } from './layout.tsx';
import { pathNumber, subscriptionOfPath } from './webhook-subscription-page.tsx';
import type { WebhookPagesDeps } from './webhooks-page.tsx';

/** Headers one per line, as sent or received. */
function headerLines(headers: [string, string][] | Record<string, string | string[]> | null): string {
  if (!headers) return '';
  const pairs = Array.isArray(headers)
    ? headers
    : Object.entries(headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v) => [name, v]),
      );
  return pairs.map(([name, value]) => `${name}: ${value}`).join('\n');
}

/** One attempt: what was sent and what came back. */
function Delivery(props: { delivery: DeliveryRecord }): VNode {
  const d = props.delivery;
  const id = `delivery-${d.id}`;
  return (
    <section class="ak-card" aria-labelledby={id} data-delivery-id={d.id}>
      <h3 id={id}>
        Attempt {d.attempt}:{' '}
        <span data-field="response_status">
          {d.response_status !== null ? `HTTP ${d.response_status}` : `no response (${d.error ?? 'error'})`}
        </span>
      </h3>
      <p class="ak-subdued">
        {shownTime(d.started_at)}, {d.duration_ms} ms
      </p>
      <h4>Request</h4>
      <p class="ak-mono">POST {d.request_url}</p>
      <pre class="ak-code" data-field="request_headers">
        {headerLines(d.request_headers)}
      </pre>
      <pre class="ak-code" data-field="request_body">
        {d.request_body}
      </pre>
      <h4>Response</h4>
      {d.response_status !== null ? (
        <>
          <pre class="ak-code" data-field="response_headers">
            {headerLines(d.response_headers)}
          </pre>
          <pre class="ak-code" data-field="response_body">
            {d.response_body ?? ''}
          </pre>
          {d.response_truncated ? (
            <p data-field="response_truncated">
              <span class="ak-badge">truncated</span> Only the first 4 KiB of the body are kept.
            </p>
          ) : null}
        </>
      ) : (
        <p>No response: {d.error}.</p>
      )}
    </section>
  );
}

/** The event's page. */
export function EventPage(props: {
  person: PersonRecord;
  csrfToken: string;
  subscription: SubscriptionRow;
  event: EventSummary;
  deliveries: DeliveryRecord[];
  error?: string | undefined;
}): VNode {
  const e = props.event;
  const base = `/developer/webhooks/${props.subscription.id}/events/${e.id}`;
  return (
    <DeveloperLayout
      title={`Event ${e.uuid}`}
      lede={`${e.name}, for ${props.subscription.url}`}
      person={props.person}
      csrfToken={props.csrfToken}
      tab="webhooks"
    >
      <p>
        <a href={`/developer/webhooks/${props.subscription.id}`}>Back to the subscription</a>
      </p>
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      <section class="ak-card" aria-labelledby="event-title">
        <h2 id="event-title">Event</h2>
        <dl class="ak-facts">
          <dt>Status</dt>
          <dd>
            <span class="ak-badge" data-field="status">
              {e.status}
            </span>
          </dd>
          <dt>Name</dt>
          <dd class="ak-mono">{e.name}</dd>
          <dt>Created</dt>
          <dd>{shownTime(e.created_at)}</dd>
          <dt>Attempts</dt>
          <dd data-field="attempts">{e.attempts}</dd>
          {e.next_attempt_at ? (
            <>
              <dt>Next attempt</dt>
              <dd>{shownTime(e.next_attempt_at)}</dd>
            </>
          ) : null}
        </dl>
        <div class="ak-actions">
          <form method="post" action={`${base}/redeliver`}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Redeliver</button>
          </form>
          <form method="post" action={`${base}/ignore`}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Ignore</button>
          </form>
        </div>
        <h3>Payload</h3>
        <pre class="ak-code" data-field="payload">
          {e.payload}
        </pre>
      </section>
      <h2>Deliveries</h2>
      {props.deliveries.length ? (
        props.deliveries.map((d) => <Delivery key={d.id} delivery={d} />)
      ) : (
        <p class="ak-empty">No attempt yet.</p>
      )}
    </DeveloperLayout>
  );
}

/** Routes under `/developer/webhooks/:id/events/:event` (behind requireHostLogin). */
export function webhookEventPages(deps: WebhookPagesDeps): Router {
  const router = Router();

  /** The subscription and event of the path, or undefined (a 404 page has been sent). */
  async function eventOfPath(
    req: Request,
    res: Response,
  ): Promise<{ subscription: SubscriptionRow; event: EventSummary } | undefined> {
    const subscription = await subscriptionOfPath(deps, req, res);
    if (!subscription) return undefined;
    const id = pathNumber(req.params.event);
    const [event] = id ? await listEvents(deps.db, subscription.id, { id, limit: 1 }) : [];
    if (!event) {
      sendMessagePage(res, 404, 'Not found', 'That event does not exist.');
      return undefined;
    }
    return { subscription, event };
  }

  async function show(req: Request, res: Response, status: number, error?: string): Promise<void> {
    const found = await eventOfPath(req, res);
    if (!found) return;
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const deliveries = await listDeliveries(deps.db, found.event.id);
    sendPage(
      res,
      status,
      <EventPage person={hostPersonOf(req)} csrfToken={csrfToken} {...found} deliveries={deliveries} error={error} />,
    );
  }

  /** Runs an action on the event; its 422 (ValidationError) is shown on the event's page. */
  function action(run: (found: { subscription: SubscriptionRow; event: EventSummary }) => Promise<void>) {
    return async (req: Request, res: Response) => {
      const found = await eventOfPath(req, res);
      if (!found) return;
      try {
        await run(found);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return await show(req, res, 422, error.detail);
      }
      res.redirect(303, `/developer/webhooks/${found.subscription.id}/events/${found.event.id}`);
    };
  }

  router.get('/webhooks/:id/events/:event', (req, res) => show(req, res, 200));
  router.post(
    '/webhooks/:id/events/:event/redeliver',
    requireCsrf,
    action(async ({ subscription, event }) => {
      await redeliverEvent(deps.db, { event: event.id, subscriptionActive: subscription.active });
      deps.wakeWebhooks?.();
    }),
  );
  router.post(
    '/webhooks/:id/events/:event/ignore',
    requireCsrf,
    action(({ event }) => ignoreEvent(deps.db, event.id)),
  );
  return router;
}
