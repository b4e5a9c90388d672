-- People product, complete: list states and automation counts, list results, shares, stars, views,
-- automations, and the bulk-mail provider configuration with its per-list sync status.
-- Allowed values are documented in docs/people-api.md.
ALTER TABLE lists
  ADD COLUMN auto_generated_name boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT lists_auto_refresh_frequency_check CHECK (auto_refresh_frequency IN ('hourly', 'daily', 'weekly', 'monthly')),
  ADD CONSTRAINT lists_returns_check CHECK (returns IN ('individuals', 'adults', 'children')),
  ADD CONSTRAINT lists_subset_check CHECK (subset IN ('all', 'any')),
  ADD CONSTRAINT lists_status_check CHECK (status IN ('never_run', 'complete', 'stale', 'failed'));
CREATE INDEX lists_campus_idx ON lists (campus_id);
CREATE INDEX lists_list_category_idx ON lists (list_category_id);

CREATE INDEX notes_note_category_idx ON notes (note_category_id);
CREATE INDEX people_campus_idx ON people (campus_id);

-- The people a list found on its last run. created_at: when the person first entered the list
-- (kept across runs while the person keeps matching).
CREATE TABLE list_results (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (list_id, person_id)
);
CREATE INDEX list_results_person_idx ON list_results (person_id);

-- A list shared with a person: view (read it) or edit (manage it).
CREATE TABLE list_shares (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  permission text NOT NULL CHECK (permission IN ('view', 'edit')),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (list_id, person_id)
);

-- A person's star on a list (per person).
CREATE TABLE list_stars (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (list_id, person_id)
);

-- When a person last opened a list (GET /people/v2/lists/{id}); feeds recently_viewed.
CREATE TABLE list_views (
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  viewed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (list_id, person_id)
);

-- Automations attached to a list (counted by the List attributes; no endpoint manages them yet).
CREATE TABLE list_automations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX list_automations_list_idx ON list_automations (list_id);

-- The organization's bulk-mail provider, configured by an administrator. endpoint_url receives the
-- list's people as JSON; only http(s) is accepted (also checked in code before every request).
CREATE TABLE bulkmail_providers (
  organization_id bigint PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  provider text NOT NULL DEFAULT 'http_json' CHECK (provider IN ('http_json')),
  endpoint_url text NOT NULL CHECK (endpoint_url ~* '^https?://'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The last bulk-mail synchronisation of a list (BulkmailSyncStatus).
CREATE TABLE bulkmail_sync_statuses (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL UNIQUE REFERENCES lists(id) ON DELETE CASCADE,
  provider text NOT NULL,
  status text NOT NULL CHECK (status IN ('syncing', 'synced', 'failed')),
  people_count integer NOT NULL DEFAULT 0,
  synced_people_count integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  failed_attempts integer NOT NULL DEFAULT 0,
  last_error text,
  last_attempted_at timestamptz,
  last_synced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
