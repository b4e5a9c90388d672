-- Every change of an OAuth application is announced on a channel (payload: its client_id), so each host
-- process drops its cached client at once (host/oauth/client-cache.ts), whichever module or tool wrote it.
CREATE FUNCTION oauth_application_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('oauth_application_changed', OLD.client_id);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('oauth_application_changed', NEW.client_id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER oauth_application_changed AFTER INSERT OR UPDATE OR DELETE ON oauth_applications
  FOR EACH ROW EXECUTE FUNCTION oauth_application_changed();
