-- Every change of what a proxied add-on call is allowed on is announced on one channel, so the embedded host
-- can keep that answer in memory (host/addons/proxy-call-cache.ts) and drop it the moment it changes: the
-- session's record (revoked, expired, moved — not the last_seen_at touch), the person (status, organization,
-- roles), the organization's name, the installation and its add-on's live version, and the person's
-- authorization (tokens rotated, state changed). One notification per statement, without payload: a listener
-- forgets everything it holds. PostgreSQL delivers a transaction's notifications once, at its commit.
CREATE FUNCTION proxy_call_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('proxy_call_changed', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER proxy_call_changed AFTER UPDATE OF revoked_at, expires_at, person_id, organization_id OR DELETE OR TRUNCATE
  ON host_sessions FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON people FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON organizations FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON person_product_roles FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON addons FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON addon_versions FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON addon_installations FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON addon_authorizations FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed();
