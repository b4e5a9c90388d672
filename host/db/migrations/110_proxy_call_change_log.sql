-- PostgreSQL hosts keep what a proxied add-on call is allowed on too (host/addons/proxy/proxy-call-changes.ts):
-- every change migrations 098 and 099 announce is also written down here, one row per writing transaction
-- (its transaction id), so a host can ask "did anything commit since my last look?" in one cheap statement that
-- sees every commit before it began — in every host process at once. The embedded host, which hears its NOTIFY
-- in the statement that committed it, still only notifies.
--
-- Inserting a row keyed by one's own transaction id waits for no other writer (unlike NOTIFY, whose commit takes a
-- lock shared by the whole server until the commit is flushed): writers of people, sessions or installations are
-- not queued behind each other. Rows older than ten minutes are deleted by the hosts (that deletion is written
-- down as a change itself, so nobody misses what it removed).
CREATE TABLE proxy_call_changes (
  xid xid8 PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now()
);

-- The function finds the table in the schema it was made in, whatever the writer's search_path.
CREATE OR REPLACE FUNCTION proxy_call_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF current_setting('addon_kit.proxy_call_cache', true) = 'on' THEN
    PERFORM pg_notify('proxy_call_changed', '');
  ELSE
    INSERT INTO proxy_call_changes (xid) VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
