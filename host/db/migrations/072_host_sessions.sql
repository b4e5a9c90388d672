-- Server-side records of the host login sessions (host/auth/host-sessions.ts): the sealed cookie carries a random
-- session id, stored here only as its SHA-256 digest. A cookie is accepted while its row is neither revoked nor
-- expired, so logout, a password change and "sign out everywhere" end copies of the cookie too.
CREATE TABLE host_sessions (
  id_hash text PRIMARY KEY,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  -- Updated at most every few minutes, not on every request.
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX host_sessions_person_idx ON host_sessions (person_id) WHERE revoked_at IS NULL;
CREATE INDEX host_sessions_expires_idx ON host_sessions (expires_at);
