/**
 * The reads of webhook_events and webhook_deliveries: an event or a delivery as the API renders it, pages of them
 * under the API's `where`, order and paging, and the developer pages' lists. The writes: writes.ts.
 */
import type { Queryable } from '../../db/database.ts';
import { queryCollection } from '../../jsonapi/collection-sql.ts';
import type { CollectionQuery } from '../../jsonapi/query.ts';
import type { ResourceDefinition, Row } from '../../jsonapi/resource.ts';
import { isoTimestampSql, SqlParams } from '../../jsonapi/sql.ts';
import { deliveryBody } from '../delivery-body.ts';

/** The SELECT lists of an event (alias `e`) and a delivery (alias `d`, headers as one object) the API renders. */
const EVENT_SELECT = `e.id::text AS id, e.uuid::text AS uuid, e.name, e.payload, e.status, e.attempts,
  CASE WHEN e.status = 'pending' THEN ${isoTimestampSql('e.next_attempt_at')} END AS next_attempt_at,
  ${isoTimestampSql('e.created_at')} AS created_at, ${isoTimestampSql('e.updated_at')} AS updated_at,
  e.subscription_id::text AS subscription_id`;

/**
 * What a delivery's request body is rebuilt from (alias `d` joined to its event `e`): the worker stores none
 * (writes.ts `finishAttempts`), since it is the event's own body for that attempt; rows written before keep theirs.
 */
const BODY_SOURCE_SELECT = `d.request_body, d.attempt AS body_attempt, e.uuid::text AS body_uuid, e.name AS body_name,
  CASE WHEN d.request_body IS NULL THEN e.payload END AS body_payload, e.organization_id::text AS body_organization_id`;

const DELIVERY_SELECT = `d.id::text AS id, d.attempt, d.request_url,
  (SELECT COALESCE(jsonb_object_agg(h->>0, h->>1), '{}'::jsonb) FROM jsonb_array_elements(d.request_headers) h) AS request_headers,
  ${BODY_SOURCE_SELECT}, d.response_status, d.response_headers, d.response_body, d.response_truncated, d.error,
  ${isoTimestampSql('d.started_at')} AS started_at, d.duration_ms, d.event_id::text AS event_id,
  e.subscription_id::text AS subscription_id`;

/** The columns of BODY_SOURCE_SELECT. */
interface BodySource {
  request_body: string | null;
  body_attempt: number;
  body_uuid: string;
  body_name: string;
  body_payload: string | null;
  body_organization_id: string;
}

/** The row with its `request_body`: the stored one, else the event's body for that attempt as the worker sent it. */
function withRequestBody<T extends BodySource>(row: T): Omit<T, keyof BodySource> & { request_body: string } {
  const { request_body, body_attempt, body_uuid, body_name, body_payload, body_organization_id, ...rest } = row;
  const body =
    request_body ??
    deliveryBody({
      uuid: body_uuid,
      name: body_name,
      attempt: body_attempt,
      payload: body_payload ?? '',
      organizationId: body_organization_id,
    });
  return { ...rest, request_body: body };
}

/** One event of the subscription as the API renders it, or undefined. The caller has checked the subscription. */
export async function findEvent(db: Queryable, subscriptionId: string, id: string): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${EVENT_SELECT} FROM webhook_events e WHERE e.subscription_id = $1 AND e.id = $2`,
    [subscriptionId, id],
  );
  return rows[0];
}

/** A page of the subscription's events under the API's (or a page's) `where[status]`, `where[uuid]`, order, paging. */
export async function queryEvents(
  db: Queryable,
  subscriptionId: string,
  def: ResourceDefinition,
  query: CollectionQuery,
  personId: string,
): Promise<{ rows: Row[]; total: number }> {
  return await queryCollection(db, def, query, {
    select: EVENT_SELECT,
    from: 'webhook_events e',
    conditions: ['e.subscription_id = $1'],
    params: new SqlParams([subscriptionId]),
    tieBreaker: 'e.id ASC',
    personId,
  });
}

/** A page of the event's deliveries (its attempts). The caller has checked the event's subscription. */
export async function queryDeliveries(
  db: Queryable,
  eventId: string,
  def: ResourceDefinition,
  query: CollectionQuery,
  personId: string,
): Promise<{ rows: Row[]; total: number }> {
  const page = await queryCollection(db, def, query, {
    select: DELIVERY_SELECT,
    from: 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id',
    conditions: ['d.event_id = $1'],
    params: new SqlParams([eventId]),
    tieBreaker: 'd.id ASC',
    personId,
  });
  return { ...page, rows: page.rows.map((row) => withRequestBody(row as Row & BodySource)) };
}

/** One delivery of the event, or undefined. */
export async function findDelivery(db: Queryable, eventId: string, id: string): Promise<Row | undefined> {
  const { rows } = await db.query<Row & BodySource>(
    `SELECT ${DELIVERY_SELECT} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.event_id = $1 AND d.id = $2`,
    [eventId, id],
  );
  return rows[0] && withRequestBody(rows[0]);
}

/** An event as the developer pages show it. */
export interface EventSummary {
  id: string;
  uuid: string;
  name: string;
  status: string;
  attempts: number;
  payload: string;
  created_at: Date;
  /** When a pending event is tried next, else null. */
  next_attempt_at: Date | null;
}

/** The subscription's events, newest first: all, those of one `status`, or the one `id`. */
export async function listEvents(
  db: Queryable,
  subscriptionId: string,
  options: { status?: string | undefined; id?: string | undefined; limit: number },
): Promise<EventSummary[]> {
  const { rows } = await db.query<EventSummary>(
    `SELECT id::text, uuid::text, name, status, attempts, payload, created_at,
       CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at
     FROM webhook_events WHERE subscription_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR id = $3)
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [subscriptionId, options.status ?? null, options.id ?? null, options.limit],
  );
  return rows;
}

/** One attempt as the developer pages show it: the request sent, the response received (or why none came). */
export interface DeliveryRecord {
  id: string;
  attempt: number;
  request_url: string;
  request_headers: [string, string][];
  request_body: string;
  response_status: number | null;
  response_headers: Record<string, string | string[]> | null;
  response_body: string | null;
  response_truncated: boolean;
  error: string | null;
  started_at: Date;
  duration_ms: number;
}

/** The event's deliveries, latest attempt first. */
export async function listDeliveries(db: Queryable, eventId: string): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<Omit<DeliveryRecord, 'request_body'> & BodySource>(
    `SELECT d.id::text, d.attempt, d.request_url, d.request_headers, ${BODY_SOURCE_SELECT}, d.response_status,
       d.response_headers, d.response_body, d.response_truncated, d.error, d.started_at, d.duration_ms
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.event_id = $1 ORDER BY d.attempt DESC, d.id DESC`,
    [eventId],
  );
  return rows.map(withRequestBody);
}
