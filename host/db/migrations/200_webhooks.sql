-- Webhooks (host/webhooks/README.md). A subscription is one person's (or an OAuth application's acting for one)
-- interest in one event name, delivered to one URL. webhook_events is the outbox: one row per subscription per
-- change, inserted in the transaction of the change, claimed by the delivery worker with FOR UPDATE SKIP LOCKED
-- and leased while an attempt is in flight. webhook_deliveries keeps every attempt's request and response.
CREATE TABLE webhook_subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  -- The OAuth application that created it acting for the person; NULL when made with a personal access token or
  -- on the developer pages.
  application_id bigint REFERENCES oauth_applications(id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  -- Sealed with the host's secret box (host/crypto/secret-box.ts): `whsec_<base64>`.
  authenticity_secret text NOT NULL,
  -- The secret before the last rotation, still signing until previous_secret_until (the grace window).
  previous_secret text,
  previous_secret_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Recording an event looks up the active subscriptions of the organization to the event's name.
CREATE INDEX webhook_subscriptions_by_event ON webhook_subscriptions (organization_id, name) WHERE active;
CREATE INDEX webhook_subscriptions_by_person ON webhook_subscriptions (person_id);

CREATE TABLE webhook_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The id a receiver deduplicates by: the body's EventDelivery id and the `webhook-id` header, the same on every
  -- attempt of this event.
  uuid uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  subscription_id bigint NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  name text NOT NULL,
  -- The resource as the API renders it (a JSON:API document), as a string: delivered as it is.
  payload text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'skipped', 'duplicated',
    'ignored_failed', 'ignored_skipped', 'ignored_duplicated')),
  -- Attempts started; the claim increments it, so it is also the attempt number of the attempt in flight.
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- While an attempt is in flight no other worker claims the event; a worker that died frees it when it runs out.
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_events_of_subscription ON webhook_events (subscription_id, created_at, id);
-- The retention sweep deletes finished events by age.
CREATE INDEX webhook_events_finished ON webhook_events (updated_at) WHERE status <> 'pending';

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  request_url text NOT NULL,
  request_headers jsonb NOT NULL,
  request_body text NOT NULL,
  -- NULL when no response came (error says why: timeout, unreachable, refused_address).
  response_status integer,
  response_headers jsonb,
  -- At most the first 4 KiB (response_truncated says whether more was sent).
  response_body text,
  response_truncated boolean NOT NULL DEFAULT false,
  error text,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_of_event ON webhook_deliveries (event_id, attempt);
