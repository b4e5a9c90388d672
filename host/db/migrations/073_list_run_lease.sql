-- Scheduled List runs (host/people/refresh-due-lists.ts): a host process claims a due list by setting this lease
-- with a conditional UPDATE before running it, so with several host processes on one database each due list is
-- run by one of them.
ALTER TABLE lists ADD COLUMN run_lease_until timestamptz;
