-- list_results is read by list only (host/people/list-reads.ts, list-includes.ts, bulkmail-sync.ts: always
-- r.list_id = …), so the index on person_id served only the delete trigger of people (migration 080), and
-- every result a list run inserts paid for it. That trigger now finds a deleted person's results through
-- the unique (list_id, person_id) index, over the lists of the person's organization (a list run inserts
-- only people of its list's organization).
DROP INDEX list_results_person_idx;

CREATE OR REPLACE FUNCTION list_results_delete_of_people() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_results r USING deleted_people d, lists l
   WHERE l.organization_id = d.organization_id AND r.list_id = l.id AND r.person_id = d.id;
  RETURN NULL;
END $$;
