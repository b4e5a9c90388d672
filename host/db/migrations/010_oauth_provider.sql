-- Storage of the OAuth 2.0 / OpenID Connect provider (oidc-provider): every model (sessions,
-- interactions, authorization codes, access and refresh tokens, grants) in one table, and the
-- provider's signing keys.
CREATE TABLE oauth_provider_records (
  -- oidc-provider model name: Session, Interaction, AuthorizationCode, AccessToken, RefreshToken, Grant, …
  model text NOT NULL,
  -- SHA-256 (hex) of the record's id. The ids of tokens, codes and sessions ARE the bearer secrets,
  -- so only their digests are stored; the payload is stored without its `jti`.
  id_digest text NOT NULL,
  payload jsonb NOT NULL,
  -- The grant a token or code belongs to (revocation of a whole grant).
  grant_id text,
  -- Session uid (oidc-provider looks sessions up by it).
  uid text,
  expires_at timestamptz,
  -- Set once, atomically: codes and refresh tokens are single use.
  consumed_at timestamptz,
  PRIMARY KEY (model, id_digest)
);
CREATE INDEX oauth_provider_records_grant_idx ON oauth_provider_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_provider_records_uid_idx ON oauth_provider_records (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_provider_records_expiry_idx ON oauth_provider_records (expires_at) WHERE expires_at IS NOT NULL;

-- RS256 signing keys of the provider (ID tokens), generated once; private JWKs AES-256-GCM sealed.
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  sealed_jwk text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

