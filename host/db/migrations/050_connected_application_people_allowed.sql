-- Who may connect an application when the organization set its access_mode to specific_people
-- (connected_application_settings, migration 003). One row per (organization, application, person);
-- the list is kept when the mode changes, so switching back to specific_people restores it.
-- The person must belong to the row's organization: the composite key below refuses anyone else.
ALTER TABLE people ADD CONSTRAINT people_id_organization_key UNIQUE (id, organization_id);

CREATE TABLE connected_application_people_allowed (
  organization_id bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  application_id bigint NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
  person_id bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, application_id, person_id),
  CONSTRAINT connected_application_people_allowed_same_organization
    FOREIGN KEY (person_id, organization_id) REFERENCES people(id, organization_id) ON DELETE CASCADE
);
-- Deleting a person finds their rows without a scan.
CREATE INDEX connected_application_people_allowed_person_idx ON connected_application_people_allowed (person_id);
