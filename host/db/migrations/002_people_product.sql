-- People product base: note and list categories, lists with rules, notes.
CREATE TABLE note_categories (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE TABLE list_categories (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE TABLE notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  person_id bigint NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  created_by_id bigint REFERENCES people(id) ON DELETE SET NULL,
  note_category_id bigint REFERENCES note_categories(id) ON DELETE RESTRICT,
  note text NOT NULL,
  display_date timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notes_organization_idx ON notes (organization_id);
CREATE INDEX notes_person_idx ON notes (person_id);

CREATE TABLE lists (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  campus_id bigint REFERENCES campuses(id) ON DELETE SET NULL,
  list_category_id bigint REFERENCES list_categories(id) ON DELETE SET NULL,
  name text,
  description text,
  auto_refresh boolean NOT NULL DEFAULT false,
  auto_refresh_frequency text NOT NULL DEFAULT 'daily',
  include_inactive boolean NOT NULL DEFAULT false,
  return_original_if_none boolean NOT NULL DEFAULT false,
  returns text NOT NULL DEFAULT 'individuals',
  subset text NOT NULL DEFAULT 'all',
  status text NOT NULL DEFAULT 'never_run',
  invalid boolean NOT NULL DEFAULT false,
  total_people integer NOT NULL DEFAULT 0,
  has_inactive_results boolean NOT NULL DEFAULT false,
  refreshed_at timestamptz,
  batch_completed_at timestamptz,
  created_by_id bigint REFERENCES people(id) ON DELETE SET NULL,
  updated_by_id bigint REFERENCES people(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lists_organization_idx ON lists (organization_id);

-- One condition of a list: <attribute> <operator> <value>, combined by the list's subset (all | any).
CREATE TABLE list_rules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  list_id bigint NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  attribute text NOT NULL,
  operator text NOT NULL,
  value text NOT NULL DEFAULT '',
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX list_rules_list_idx ON list_rules (list_id);
