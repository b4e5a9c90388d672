/**
 * The SQL of webhook_subscriptions (its one owner): create, find and list (always within the organization, and the
 * owner's own), change `active`, delete and rotate the secret; for the outbox, the active subscribers to an event
 * name and what the delivery worker needs of a subscription; deactivation after a 410 or the last failure. Secrets
 * are sealed with the host's secret box; a rotation keeps the previous secret signing for a grace window
 * (sign-delivery.ts).
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { activeInProduct } from '../directory/index.ts';
import { queryCollection } from '../jsonapi/collection-sql.ts';
import type { CollectionQuery } from '../jsonapi/query.ts';
import type { ResourceDefinition, Row } from '../jsonapi/resource.ts';
import { isoTimestampSql, SqlParams } from '../jsonapi/sql.ts';
import { generateSecret } from './subscription-secret.ts';

/** Binds a sealed secret to what it is (a sealed value moved to another column does not open). */
const SECRET_AAD = 'webhook_subscription.authenticity_secret';

/** Hours the previous secret keeps signing after a rotation. */
export const ROTATION_GRACE_HOURS = 24;

/** A subscription row as the API and the pages read it (the secret still sealed). */
export interface SubscriptionRow {
  id: string;
  organization_id: string;
  person_id: string;
  application_id: string | null;
  name: string;
  url: string;
  active: boolean;
  authenticity_secret: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id::text, organization_id::text, person_id::text, application_id::text, name, url, active,
  authenticity_secret, created_at, updated_at`;

/** The SELECT list of a subscription as the API renders it (alias `s`), the secret still sealed. */
const API_SELECT = `s.id::text AS id, s.name, s.url, s.active, s.authenticity_secret,
  s.application_id::text AS application_id, ${isoTimestampSql('s.created_at')} AS created_at,
  ${isoTimestampSql('s.updated_at')} AS updated_at`;

/** Opens a sealed secret. */
export function openSubscriptionSecret(box: SecretBox, sealed: string): string {
  return box.open(sealed, SECRET_AAD);
}

/** Who owns what is asked for: subscriptions are a person's own (an application sees those it made for them). */
export interface SubscriptionOwner {
  organizationId: string;
  personId: string;
}

/** What a new subscription is. */
export interface NewSubscription extends SubscriptionOwner {
  applicationId: string | null;
  name: string;
  url: string;
  active: boolean;
}

/** Creates a subscription with a new secret; returns it with the secret in clear (shown once on the pages). */
export async function createSubscription(
  db: Queryable,
  box: SecretBox,
  input: NewSubscription,
): Promise<{ row: SubscriptionRow; secret: string }> {
  const secret = generateSecret();
  const { rows } = await db.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions (organization_id, person_id, application_id, name, url, active, authenticity_secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [
      input.organizationId,
      input.personId,
      input.applicationId,
      input.name,
      input.url,
      input.active,
      box.seal(secret, SECRET_AAD),
    ],
  );
  return { row: rows[0]!, secret };
}

/** One subscription of the owner, or undefined (another person's or organization's id is not found). */
export async function findSubscription(
  db: Queryable,
  owner: SubscriptionOwner,
  id: string,
): Promise<SubscriptionRow | undefined> {
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE organization_id = $1 AND person_id = $2 AND id = $3`,
    [owner.organizationId, owner.personId, id],
  );
  return rows[0];
}

/** Sets `active`; reactivating gives the subscription's events no retries back (they stay as they ended). */
export async function setSubscriptionActive(
  db: Queryable,
  owner: SubscriptionOwner,
  id: string,
  active: boolean,
): Promise<void> {
  await db.query(
    `UPDATE webhook_subscriptions SET active = $4, updated_at = now()
     WHERE organization_id = $1 AND person_id = $2 AND id = $3`,
    [owner.organizationId, owner.personId, id, active],
  );
}

/** Deletes the subscription with its events and deliveries; false when the owner has no such subscription. */
export async function deleteSubscription(db: Queryable, owner: SubscriptionOwner, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM webhook_subscriptions WHERE organization_id = $1 AND person_id = $2 AND id = $3',
    [owner.organizationId, owner.personId, id],
  );
  return rowCount > 0;
}

/**
 * A new secret; the one it replaces keeps signing for ROTATION_GRACE_HOURS (a receiver switches without missing a
 * delivery). Returns the new secret in clear, or undefined when the owner has no such subscription.
 */
export async function rotateSubscriptionSecret(
  db: Queryable,
  box: SecretBox,
  owner: SubscriptionOwner,
  id: string,
): Promise<string | undefined> {
  const secret = generateSecret();
  const { rowCount } = await db.query(
    `UPDATE webhook_subscriptions
     SET previous_secret = authenticity_secret, previous_secret_until = now() + $5 * interval '1 hour',
         authenticity_secret = $4, updated_at = now()
     WHERE organization_id = $1 AND person_id = $2 AND id = $3`,
    [owner.organizationId, owner.personId, id, box.seal(secret, SECRET_AAD), ROTATION_GRACE_HOURS],
  );
  return rowCount > 0 ? secret : undefined;
}

/** The owner's subscriptions, oldest first (the developer pages). */
export async function listSubscriptions(db: Queryable, owner: SubscriptionOwner): Promise<SubscriptionRow[]> {
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE organization_id = $1 AND person_id = $2
     ORDER BY created_at, id`,
    [owner.organizationId, owner.personId],
  );
  return rows;
}

/** One subscription of the owner as the API renders it (secret still sealed), or undefined. */
export async function findSubscriptionForApi(
  db: Queryable,
  owner: SubscriptionOwner,
  id: string,
): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${API_SELECT} FROM webhook_subscriptions s WHERE s.organization_id = $1 AND s.person_id = $2 AND s.id = $3`,
    [owner.organizationId, owner.personId, id],
  );
  return rows[0];
}

/** A page of the owner's subscriptions as the API renders them, under the API's `where`, `order` and paging. */
export async function querySubscriptions(
  db: Queryable,
  owner: SubscriptionOwner,
  def: ResourceDefinition,
  query: CollectionQuery,
): Promise<{ rows: Row[]; total: number }> {
  return await queryCollection(db, def, query, {
    select: API_SELECT,
    from: 'webhook_subscriptions s',
    conditions: ['s.organization_id = $1', 's.person_id = $2'],
    params: new SqlParams([owner.organizationId, owner.personId]),
    tieBreaker: 's.id ASC',
    personId: owner.personId,
  });
}

/**
 * The ids of the active subscriptions of organization `organization` to event `name` (SQL placeholders such as `$1`),
 * as a query the outbox's statements splice in (event-store/changes.ts: whether to record a change, and whom its fan-out
 * makes events for): each is then one statement, whoever subscribes.
 */
export function activeSubscribersSql(organization: string, name: string): string {
  return `SELECT id FROM webhook_subscriptions WHERE organization_id = ${organization} AND name = ${name} AND active`;
}

/** What an attempt needs of its subscription (secrets still sealed). */
export interface DeliveryTarget {
  id: string;
  url: string;
  active: boolean;
  /** Whether the subscription's person may still see People data (active, with a People role). */
  visible: boolean;
  authenticity_secret: string;
  /** The previous secret while its grace window lasts, else null. */
  previous_secret: string | null;
}

/**
 * Every subscription as a delivery target (id, url, active, visible, authenticity_secret, previous_secret), as a query
 * the worker's claim joins its claimed events to (event-store/ `claimDueEvents`): one statement claims the events
 * and reads their targets.
 */
export function deliveryTargetsSql(): string {
  return `SELECT s.id, s.url, s.active, ${activeInProduct('s.person_id', "'people'")} AS visible,
       s.authenticity_secret, CASE WHEN s.previous_secret_until > now() THEN s.previous_secret END AS previous_secret
     FROM webhook_subscriptions s`;
}

/** Deactivates a subscription (410 Gone, or its event's last attempt failed). */
export async function deactivateSubscription(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE webhook_subscriptions SET active = false, updated_at = now() WHERE id = $1', [id]);
}
