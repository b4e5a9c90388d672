-- The template integrator's own tables. Secrets (tokens, codes) are kept only as SHA-256 digests.

CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username text NOT NULL UNIQUE,
  name text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);

-- One grant of a user to a client: every access and refresh token descends from it, so reuse of a
-- rotated refresh token or of a code revokes the whole family at once.
CREATE TABLE token_families (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id text NOT NULL,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scope text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE authorization_codes (
  code_hash text PRIMARY KEY,
  client_id text NOT NULL,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  scope text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  family_id bigint REFERENCES token_families (id) ON DELETE CASCADE
);

CREATE TABLE access_tokens (
  token_hash text PRIMARY KEY,
  family_id bigint NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX access_tokens_family ON access_tokens (family_id);

CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  family_id bigint NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Set when this token was exchanged for a new pair; the grace window counts from here.
  rotated_at timestamptz,
  -- Set when the one replay within the grace window was answered.
  replayed_at timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- The sample API: a message one user sent to people of a list on the host.
CREATE TABLE messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  list_id text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX messages_user ON messages (user_id, id);

CREATE TABLE message_recipients (
  message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  person_id text NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (message_id, person_id)
);
