/**
 * The webhooks API under `/webhooks/v2`, on the JSON:API engine of the other APIs (envelopes, paging, errors,
 * `where`, `order`), behind authentication with scope `webhooks` or a personal access token. A person sees their
 * own subscriptions only; another person's or organization's ids are 404. Handlers in the order the API lists them:
 */
import { Router, type Request } from 'express';
import { authOf } from '../../auth/authenticate.ts';
import { hasRole } from '../../auth/permissions.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.ts';
import { findOAuthApplicationByClientId } from '../../oauth/applications.ts';
import { parseResourcePayload } from '../../jsonapi/payload.ts';
import type { CollectionQuery } from '../../jsonapi/query.ts';
import type { Row } from '../../jsonapi/resource.ts';
import { collectionRoute, pathId, singleRoute } from '../../jsonapi/routes.ts';
import {
  createSubscription,
  deleteSubscription,
  findSubscriptionForApi,
  openSubscriptionSecret,
  querySubscriptions,
  rotateSubscriptionSecret,
  setSubscriptionActive,
  type SubscriptionOwner,
} from '../subscription-store.ts';
import { findDelivery, findEvent, queryDeliveries, queryEvents } from '../event-store/index.ts';
import { ignoreEvent, redeliverEvent } from '../event-actions.ts';
import { DELIVERY_URL_RULE, parseDeliveryUrl } from '../delivery-url.ts';
import { AVAILABLE_EVENT_ROWS, availableEventResource } from './available-event-resource.ts';
import { deliveryResource } from './delivery-resource.ts';
import { eventResource } from './event-resource.ts';
import {
  subscriptionCreatePayload,
  subscriptionUpdatePayload,
  webhookSubscriptionResource,
} from './webhook-subscription-resource.ts';

/** What the webhooks API needs from the host. */
export interface WebhooksApiDeps {
  db: Database;
  box: SecretBox;
  /** Wakes this process's delivery worker after a redeliver. */
  wake?: () => void;
}

function ownerOf(req: Request): SubscriptionOwner {
  const { person } = authOf(req);
  return { organizationId: person.organization_id, personId: person.id };
}

function organizationParent(req: Request) {
  return { id: authOf(req).person.organization_id, type: 'Organization' };
}

/** The subscription of the requester with its secret opened, or 404. */
async function loadSubscription(db: Queryable, box: SecretBox, owner: SubscriptionOwner, id: string): Promise<Row> {
  const row = await findSubscriptionForApi(db, owner, id);
  if (!row) throw new NotFoundError();
  return openSecret(box, row);
}

function openSecret(box: SecretBox, row: Row): Row {
  return { ...row, authenticity_secret: openSubscriptionSecret(box, String(row.authenticity_secret)) };
}

/** An event as the API renders it: its person is its subscription's (the requester). */
function withPerson(owner: SubscriptionOwner, row: Row): Row {
  return { ...row, person_id: owner.personId };
}

/** The event of one of the requester's subscriptions, or 404 (the subscription's owner is checked first). */
async function loadEvent(db: Queryable, owner: SubscriptionOwner, subscriptionId: string, id: string): Promise<Row> {
  const row = (await findSubscriptionForApi(db, owner, subscriptionId)) && (await findEvent(db, subscriptionId, id));
  if (!row) throw new NotFoundError();
  return withPerson(owner, row);
}

/** The application an OAuth token was issued to (null for a personal access token). */
async function applicationIdOf(db: Queryable, req: Request): Promise<string | null> {
  const { clientId } = authOf(req);
  if (!clientId) return null;
  return (await findOAuthApplicationByClientId(db, clientId))?.id ?? null;
}

/** 422 unless `url` is an absolute http(s) URL without credentials. */
function requireDeliveryUrl(url: unknown): string {
  const parsed = parseDeliveryUrl(url);
  if (parsed === undefined)
    throw new ValidationError('WebhookSubscription', [{ parameter: 'url', detail: DELIVERY_URL_RULE }]);
  return parsed;
}

/**
 * The `/webhooks/v2` router: the available events, the person's subscriptions, and each subscription's events
 * and their deliveries — in that order, one mounting function each.
 */
export function webhooksRouter(deps: WebhooksApiDeps): Router {
  const router = Router();
  mountAvailableEvents(router);
  mountSubscriptionRoutes(router, deps);
  mountEventRoutes(router, deps);
  return router;
}

/** `GET /available_events`: the events one may subscribe to. */
function mountAvailableEvents(router: Router): void {
  router.get(
    '/available_events',
    collectionRoute(availableEventResource, async (req, query: CollectionQuery) => ({
      rows: AVAILABLE_EVENT_ROWS.slice(query.offset, query.offset + query.perPage),
      total: AVAILABLE_EVENT_ROWS.length,
      parent: organizationParent(req),
    })),
  );
}

/** `/webhook_subscriptions` and `/webhook_subscriptions/:id`: list, create, read, (de)activate, delete, rotate the secret. */
function mountSubscriptionRoutes(router: Router, deps: WebhooksApiDeps): void {
  const { db, box } = deps;
  router.get(
    '/webhook_subscriptions',
    collectionRoute(webhookSubscriptionResource, async (req, query) => {
      const { rows, total } = await querySubscriptions(db, ownerOf(req), webhookSubscriptionResource, query);
      return { rows: rows.map((r) => openSecret(box, r)), total, parent: organizationParent(req) };
    }),
  );

  router.post(
    '/webhook_subscriptions',
    singleRoute(webhookSubscriptionResource, (req) => subscribe(deps, req), { status: 201, location: true }),
  );

  router.get(
    '/webhook_subscriptions/:id',
    singleRoute(webhookSubscriptionResource, async (req) => ({
      row: await loadSubscription(db, box, ownerOf(req), pathId(req, 'id')),
      parent: organizationParent(req),
    })),
  );

  router.patch(
    '/webhook_subscriptions/:id',
    singleRoute(webhookSubscriptionResource, async (req) => {
      const owner = ownerOf(req);
      const id = pathId(req, 'id');
      await loadSubscription(db, box, owner, id);
      const values = parseResourcePayload(req.body, subscriptionUpdatePayload);
      if (typeof values.active === 'boolean') await setSubscriptionActive(db, owner, id, values.active);
      return { row: await loadSubscription(db, box, owner, id), parent: organizationParent(req) };
    }),
  );

  router.delete('/webhook_subscriptions/:id', async (req, res) => {
    if (!(await deleteSubscription(db, ownerOf(req), pathId(req, 'id')))) throw new NotFoundError();
    res.status(204).end();
  });

  router.post(
    '/webhook_subscriptions/:id/rotate_secret',
    singleRoute(webhookSubscriptionResource, async (req) => {
      const owner = ownerOf(req);
      const id = pathId(req, 'id');
      if ((await rotateSubscriptionSecret(db, box, owner, id)) === undefined) throw new NotFoundError();
      return { row: await loadSubscription(db, box, owner, id), parent: organizationParent(req) };
    }),
  );
}

/** `POST /webhook_subscriptions`: a new subscription of the person (the People viewer role needed). */
async function subscribe(deps: WebhooksApiDeps, req: Request) {
  const { db, box } = deps;
  const { person } = authOf(req);
  // Deliveries carry People data: only someone who may read it subscribes to it.
  if (!hasRole(person, 'people', 'viewer'))
    throw new ForbiddenError('Subscribing to People events needs the people viewer role or higher');
  const values = parseResourcePayload(req.body, subscriptionCreatePayload);
  if (typeof values.name !== 'string')
    throw new ValidationError('WebhookSubscription', [{ parameter: 'name', detail: "name can't be blank" }]);
  const url = requireDeliveryUrl(values.url);
  const { row } = await createSubscription(db, box, {
    ...ownerOf(req),
    applicationId: await applicationIdOf(db, req),
    name: values.name,
    url,
    active: values.active !== false,
  });
  return { row: await loadSubscription(db, box, ownerOf(req), row.id), parent: organizationParent(req) };
}

/** `/webhook_subscriptions/:id/events…`: a subscription's events (read, ignore, redeliver) and their deliveries. */
function mountEventRoutes(router: Router, deps: WebhooksApiDeps): void {
  const { db, box } = deps;
  router.get(
    '/webhook_subscriptions/:id/events',
    collectionRoute(eventResource, async (req, query) => {
      const owner = ownerOf(req);
      const subscription = await loadSubscription(db, box, owner, pathId(req, 'id'));
      const { rows, total } = await queryEvents(db, String(subscription.id), eventResource, query, owner.personId);
      return {
        rows: rows.map((r) => withPerson(owner, r)),
        total,
        parent: { id: String(subscription.id), type: 'WebhookSubscription' },
      };
    }),
  );

  router.get(
    '/webhook_subscriptions/:id/events/:event_id',
    singleRoute(eventResource, async (req) => ({
      row: await loadEvent(db, ownerOf(req), pathId(req, 'id'), pathId(req, 'event_id')),
      parent: { id: pathId(req, 'id'), type: 'WebhookSubscription' },
    })),
  );

  router.post(
    '/webhook_subscriptions/:id/events/:event_id/ignore',
    singleRoute(eventResource, async (req) => {
      const owner = ownerOf(req);
      const event = await loadEvent(db, owner, pathId(req, 'id'), pathId(req, 'event_id'));
      await ignoreEvent(db, String(event.id));
      return {
        row: await loadEvent(db, owner, pathId(req, 'id'), String(event.id)),
        parent: { id: pathId(req, 'id'), type: 'WebhookSubscription' },
      };
    }),
  );

  router.post(
    '/webhook_subscriptions/:id/events/:event_id/redeliver',
    singleRoute(eventResource, async (req) => {
      const owner = ownerOf(req);
      const subscription = await loadSubscription(db, box, owner, pathId(req, 'id'));
      const event = await loadEvent(db, owner, String(subscription.id), pathId(req, 'event_id'));
      await redeliverEvent(db, { event: String(event.id), subscriptionActive: subscription.active === true });
      deps.wake?.();
      return {
        row: await loadEvent(db, owner, String(subscription.id), String(event.id)),
        parent: { id: String(subscription.id), type: 'WebhookSubscription' },
      };
    }),
  );

  router.get(
    '/webhook_subscriptions/:id/events/:event_id/deliveries',
    collectionRoute(deliveryResource, async (req, query) => {
      const owner = ownerOf(req);
      const event = await loadEvent(db, owner, pathId(req, 'id'), pathId(req, 'event_id'));
      const { rows, total } = await queryDeliveries(db, String(event.id), deliveryResource, query, owner.personId);
      return { rows, total, parent: { id: String(event.id), type: 'Event' } };
    }),
  );

  router.get(
    '/webhook_subscriptions/:id/events/:event_id/deliveries/:delivery_id',
    singleRoute(deliveryResource, async (req) => {
      const event = await loadEvent(db, ownerOf(req), pathId(req, 'id'), pathId(req, 'event_id'));
      const row = await findDelivery(db, String(event.id), pathId(req, 'delivery_id'));
      return { row, parent: { id: String(event.id), type: 'Event' } };
    }),
  );
}
