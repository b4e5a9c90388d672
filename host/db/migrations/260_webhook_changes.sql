-- Webhooks (host/webhooks/README.md, "How an event flows"): the outbox of changes. A People write records one row
-- here, in its own transaction, when at least one active subscription of its organization wants the event's name;
-- the delivery worker fans each change out into webhook_events (one row per subscription active at that moment) and
-- deletes it, in one statement. A write so pays one row whatever the number of its subscribers (issue 26's figure:
-- ten event rows and their twenty foreign-key checks were most of what a subscribed write cost).
-- No foreign key, on purpose: a change of an organization deleted meanwhile fans out to no subscription (theirs were
-- deleted with it) and is deleted by that fan-out, and a write pays no key check.
CREATE TABLE webhook_changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL,
  name text NOT NULL,
  -- The resource as the API renders it (a JSON:API document), as a string: each event's payload.
  payload text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
