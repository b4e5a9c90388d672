-- A list run inserts thousands of results in one statement; the two foreign keys of list_results checked
-- (and row-locked) the list and the person once per inserted row — most of a fresh run's time. Results are
-- written only by the list run (host/people/run-list.ts), which inserts people of the list's organization it
-- has just read, for a list that exists; so the per-row checks go and what the keys also did stays: a
-- deleted list or person takes its results along (statement-level triggers, once per DELETE statement).
-- Left to the run: a person deleted by another transaction while a PostgreSQL run is inserting them can
-- leave one result without a person until the list's next run removes it (list reads join people).
ALTER TABLE list_results DROP CONSTRAINT list_results_list_id_fkey, DROP CONSTRAINT list_results_person_id_fkey;

CREATE FUNCTION list_results_delete_of_lists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_results r USING deleted_lists d WHERE r.list_id = d.id;
  RETURN NULL;
END $$;

CREATE FUNCTION list_results_delete_of_people() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_results r USING deleted_people d WHERE r.person_id = d.id;
  RETURN NULL;
END $$;

CREATE TRIGGER lists_delete_results AFTER DELETE ON lists
  REFERENCING OLD TABLE AS deleted_lists FOR EACH STATEMENT EXECUTE FUNCTION list_results_delete_of_lists();
CREATE TRIGGER people_delete_list_results AFTER DELETE ON people
  REFERENCING OLD TABLE AS deleted_people FOR EACH STATEMENT EXECUTE FUNCTION list_results_delete_of_people();
