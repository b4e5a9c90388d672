-- Organizations, campuses, people with per-product roles, personal access tokens.
CREATE TABLE organizations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE campuses (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE TABLE people (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text,
  avatar_url text,
  site_administrator boolean NOT NULL DEFAULT false,
  -- scrypt$N$r$p$salt$hash (base64url); NULL: this person cannot log in.
  password_hash text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  membership text,
  gender text CHECK (gender IN ('M', 'F')),
  birthdate date,
  campus_id bigint REFERENCES campuses(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Login is by e-mail across the platform.
CREATE UNIQUE INDEX people_email_key ON people (lower(email)) WHERE email IS NOT NULL;
CREATE INDEX people_organization_idx ON people (organization_id);

-- The access a person has in each product, read on every request.
CREATE TABLE person_product_roles (
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  product text NOT NULL CHECK (product IN ('api', 'calendar', 'check_ins', 'giving', 'groups', 'home', 'people', 'publishing', 'registrations', 'services')),
  role text NOT NULL CHECK (role IN ('viewer', 'editor', 'manager')),
  PRIMARY KEY (person_id, product)
);

CREATE TABLE personal_access_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  client_id text NOT NULL UNIQUE,
  -- SHA-256 of the secret, hex; the secret itself is shown once and never stored.
  secret_hash text NOT NULL,
  disabled_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX personal_access_tokens_person_idx ON personal_access_tokens (person_id);
