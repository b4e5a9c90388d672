-- Every change of what a proxied add-on call is allowed on is announced on one channel, so the embedded host
-- can keep that answer in memory (host/addons/proxy-call-cache.ts) and drop it the moment it changes: the
-- session's record (revoked, expired, moved — not the last_seen_at touch), the person (status, organization,
-- roles), the organization's name, the installation and its add-on's live version, and the person's
-- authorization (tokens rotated, state changed). One notification per statement, without payload: a listener
-- forgets everything it holds. PostgreSQL delivers a transaction's notifications once, at its commit.
--
-- Announced only where a cache listens: the embedded host turns `addon_kit.proxy_call_cache` on for its one
-- connection. On PostgreSQL nobody keeps these reads (the cache is off there), and a transaction that notifies
-- takes a database-wide lock until its commit is flushed, which would queue every writer of these tables.
CREATE FUNCTION proxy_call_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('addon_kit.proxy_call_cache', true) = 'on' THEN
    PERFORM pg_notify('proxy_call_changed', '');
  END IF;
  RETURN NULL;
END
$$;

-- The session's record: whether it still counts, and whose it is (not the last_seen_at touch).
CREATE TRIGGER proxy_call_changed AFTER UPDATE OF revoked_at, expires_at, person_id, organization_id OR DELETE OR TRUNCATE
  ON host_sessions FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
-- Every other table a proxied call reads from: any change of it.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['people', 'organizations', 'person_product_roles', 'addons', 'addon_versions',
                           'addon_installations', 'addon_authorizations'] LOOP
    EXECUTE format('CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
                      FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed()', t);
  END LOOP;
END
$$;
