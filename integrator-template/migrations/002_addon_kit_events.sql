-- Add-on lifecycle events received from the host (webhooks/addon-kit-receiver.ts), one row per event id: the host
-- delivers at least once, so a repeated delivery finds its id here and changes nothing.
CREATE TABLE addon_kit_events (
  id text PRIMARY KEY,
  name text NOT NULL,
  -- The event's payload as the host sent it (a JSON document).
  payload text NOT NULL,
  received_at timestamptz NOT NULL
);
