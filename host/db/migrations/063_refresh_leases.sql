-- Token refresh across host processes (host/addons/tokens): a short lease per authorization and side,
-- claimed with one conditional UPDATE committed before the token request, released by the write of its
-- result. A process that dies holding one only delays the next refresh until the lease runs out.
ALTER TABLE addon_authorizations
  ADD COLUMN service_refresh_lease_until timestamptz,
  ADD COLUMN service_refresh_lease_owner text,
  ADD COLUMN integrator_refresh_lease_until timestamptz,
  ADD COLUMN integrator_refresh_lease_owner text;
-- The host's answer to a refresh, kept on the refresh token it consumed for the concurrency grace
-- (host/oauth/refresh-replay.ts): AES-256-GCM under a key derived from that refresh token itself, so
-- only its holder can open it.
ALTER TABLE oauth_provider_records ADD COLUMN replay_sealed text;
