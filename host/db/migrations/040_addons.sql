-- Add-ons: registered versions per environment, installations per organization, and the per-person
-- authorization record (handshake state + the host's and the integrator's tokens, AES-256-GCM sealed).

-- An add-on is owned by the organization of its OAuth application (one add-on per application).
CREATE TABLE addons (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  oauth_application_id bigint NOT NULL UNIQUE REFERENCES oauth_applications(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every push or promotion adds a version; the highest version of an environment is the live one.
CREATE TABLE addon_versions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  addon_id bigint NOT NULL REFERENCES addons(id) ON DELETE CASCADE,
  environment text NOT NULL CHECK (environment IN ('development', 'beta', 'production')),
  version integer NOT NULL,
  -- Host scopes the add-on requests (space-separated on the wire, an array here).
  scopes text[] NOT NULL,
  -- {insertion point: {title, icon_url, entry}} limited to the environment's ui_extensions.
  ui_extensions jsonb NOT NULL,
  -- {authorize_url, token_url, redirect_url, client_id, scopes}; the secret is sealed apart.
  integrator_oauth jsonb NOT NULL,
  integrator_client_secret_encrypted text NOT NULL,
  -- {base_url, allow: [{method, path}]}
  integrator_api jsonb NOT NULL,
  organization_ids bigint[] NOT NULL DEFAULT '{}',
  bundle text NOT NULL,
  bundle_sha256 text NOT NULL,
  promoted_from_id bigint REFERENCES addon_versions(id) ON DELETE SET NULL,
  created_by_id bigint REFERENCES people(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (addon_id, environment, version)
);

-- An add-on environment as seen by one organization; the id is the installation id of the URLs.
CREATE TABLE addon_installations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  addon_id bigint NOT NULL REFERENCES addons(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment text NOT NULL CHECK (environment IN ('development', 'beta', 'production')),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (addon_id, organization_id, environment)
);

-- One person's authorization of one installation: the handshake state machine and the token vault.
-- Sealed columns hold `v1.<keyId>.…` (host/crypto/secret-box.ts); encryption_key_id repeats the key
-- id so rows sealed with a retired key can be found.
CREATE TABLE addon_authorizations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  installation_id bigint NOT NULL REFERENCES addon_installations(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'uninitialized'
    CHECK (state IN ('uninitialized', 'service_authorized', 'integrator_pending', 'ready', 'reauthorization_required')),
  encryption_key_id text,
  -- The host's own grant for the add-on's OAuth application (authenticatedFetch).
  service_access_token_encrypted text,
  service_refresh_token_encrypted text,
  service_expires_at timestamptz,
  service_scopes text[] NOT NULL DEFAULT '{}',
  -- The integrator's tokens (authenticatedIntegratorFetch).
  integrator_access_token_encrypted text,
  integrator_refresh_token_encrypted text,
  integrator_expires_at timestamptz,
  integrator_scope text,
  integrator_refreshed_at timestamptz,
  -- The running handshake: SHA-256 of its state value, the sealed PKCE verifier, its deadline.
  handshake_state_hash text,
  handshake_code_verifier_encrypted text,
  handshake_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (installation_id, person_id)
);
-- The sweeper's scan: refreshable integrator tokens by expiry.
CREATE INDEX addon_authorizations_expiry_idx ON addon_authorizations (integrator_expires_at)
  WHERE integrator_refresh_token_encrypted IS NOT NULL;
