-- Add-on lifecycle events (host/addons/lifecycle/README.md): the host tells an add-on's integrator when a person
-- completes the handshake, revokes it, is excluded by the application's access_mode, or must authorize again.
-- They go through the webhooks outbox (webhook_events, owned by host/webhooks) and its delivery worker: such a
-- row has no subscription; it carries its own target URL (the add-on version's webhook_url) and signing secret
-- (the integrator's OAuth client secret, sealed with the host's secret box), copied when the event is recorded.
ALTER TABLE webhook_events ALTER COLUMN subscription_id DROP NOT NULL;
ALTER TABLE webhook_events ADD COLUMN target_url text;
ALTER TABLE webhook_events ADD COLUMN signing_secret text;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_target CHECK (
  (subscription_id IS NOT NULL AND target_url IS NULL AND signing_secret IS NULL)
  OR (subscription_id IS NULL AND target_url IS NOT NULL AND signing_secret IS NOT NULL));

-- Per environment: where the integrator receives lifecycle events (NULL: it asked for none).
ALTER TABLE addon_versions ADD COLUMN webhook_url text;

-- The person's id as the integrator knows it: `user_id` (or `sub`) of its token response at step 6.
ALTER TABLE addon_authorizations ADD COLUMN integrator_subject text;
-- When the application's access_mode was first seen to leave the person out (the `excluded` event is recorded
-- then, once); cleared when a handshake completes again.
ALTER TABLE addon_authorizations ADD COLUMN excluded_at timestamptz;
