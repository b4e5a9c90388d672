-- A list run whose matched people are exactly the stored results writes only the list row
-- (host/people/run-list.ts). results_digest: `seed:count:x:y` of the list's result person ids (see digestOf
-- there), written by the last step of every run that recomputed the results, from the results themselves.
-- NULL: unknown, the next run diffs in full.
--
-- Every change of list_results by anything but a completed run makes the digest unknown (statement
-- triggers below): the results a deleted person (migration 080) or a deleted list takes along, a DELETE or
-- TRUNCATE by hand. Results are inserted only by the list run, which clears a known digest before its
-- first chunk on the embedded database (a run that stops half-way leaves it unknown) and runs in one
-- transaction on PostgreSQL.
ALTER TABLE lists ADD COLUMN results_digest text;

CREATE FUNCTION list_results_forget_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lists l SET results_digest = NULL
   WHERE l.results_digest IS NOT NULL AND l.id IN (SELECT DISTINCT c.list_id FROM changed_results c);
  RETURN NULL;
END $$;

CREATE FUNCTION list_results_forget_every_digest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lists SET results_digest = NULL WHERE results_digest IS NOT NULL;
  RETURN NULL;
END $$;

CREATE TRIGGER list_results_delete_forgets_digest AFTER DELETE ON list_results
  REFERENCING OLD TABLE AS changed_results FOR EACH STATEMENT EXECUTE FUNCTION list_results_forget_digest();
CREATE TRIGGER list_results_update_forgets_digest_of_old AFTER UPDATE ON list_results
  REFERENCING OLD TABLE AS changed_results FOR EACH STATEMENT EXECUTE FUNCTION list_results_forget_digest();
CREATE TRIGGER list_results_update_forgets_digest_of_new AFTER UPDATE ON list_results
  REFERENCING NEW TABLE AS changed_results FOR EACH STATEMENT EXECUTE FUNCTION list_results_forget_digest();
CREATE TRIGGER list_results_truncate_forgets_digest AFTER TRUNCATE ON list_results
  FOR EACH STATEMENT EXECUTE FUNCTION list_results_forget_every_digest();
