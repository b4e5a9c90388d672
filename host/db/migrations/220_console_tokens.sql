-- Console tokens (host/auth/console-tokens.ts): short-lived tokens the host issues to a signed-in person for the
-- /docs try-it console, each bound to one API (its mount prefix) and that API's OAuth scope. Sent like a personal
-- access token (HTTP Basic, client_id `console_…`); the secret is stored only as its SHA-256 digest. Revoking one
-- deletes its row; expired rows are deleted by the hourly housekeeping and when their person issues or lists tokens.
CREATE TABLE console_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  -- Where the token is accepted, e.g. /people/v2, and the scope it carries there (none for /current/v2).
  api_prefix text NOT NULL,
  scope text,
  client_id text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX console_tokens_person_idx ON console_tokens (person_id);
CREATE INDEX console_tokens_expires_idx ON console_tokens (expires_at);
