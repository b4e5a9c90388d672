-- OAuth applications, the organizations' connections to them, and monthly active users.
-- The OAuth provider (host/oauth) keeps its own grants and tokens; these tables are what the
-- developer-account API reads.
CREATE TABLE oauth_applications (
  -- The integer id of the spec (not the client_id).
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  url text NOT NULL DEFAULT '',
  client_id text NOT NULL UNIQUE,
  -- AES-256-GCM ciphertext of the client secret (host/crypto/secret-box.ts); NULL for public clients.
  client_secret_encrypted text,
  public boolean NOT NULL DEFAULT false,
  redirect_uris text[] NOT NULL,
  -- Space-separated host scopes an add-on of this application requests.
  add_on_scopes text NOT NULL DEFAULT '',
  created_by_id bigint REFERENCES people(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_applications_organization_idx ON oauth_applications (organization_id);

-- A person of an organization who authorized an application (ConnectedApplicationPerson).
CREATE TABLE oauth_connections (
  application_id bigint NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  scopes text[] NOT NULL DEFAULT '{}',
  connected_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (application_id, person_id)
);
CREATE INDEX oauth_connections_organization_idx ON oauth_connections (organization_id, application_id);

-- Who in an organization may connect an application (ConnectedApplication.access_mode).
CREATE TABLE connected_application_settings (
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  application_id bigint NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
  access_mode text NOT NULL DEFAULT 'anyone' CHECK (access_mode IN ('anyone', 'admins_only', 'specific_people')),
  PRIMARY KEY (organization_id, application_id)
);

-- One row per (application, person, month) in which the person was issued a token.
CREATE TABLE oauth_monthly_active_users (
  application_id bigint NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  year integer NOT NULL,
  month integer NOT NULL CHECK (month BETWEEN 1 AND 12),
  PRIMARY KEY (application_id, year, month, person_id)
);
