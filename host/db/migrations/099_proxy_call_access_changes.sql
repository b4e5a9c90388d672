-- Who may use an application (its organization's access mode, the people listed for it) is part of what a proxied
-- add-on call is allowed on (host/addons/proxy/check-access.ts): changes of it are announced on the same channel as
-- migration 098's, so the embedded host's kept answers are dropped the moment an administrator changes the setting.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['connected_application_settings', 'connected_application_people_allowed'] LOOP
    EXECUTE format('CREATE TRIGGER proxy_call_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
                      FOR EACH STATEMENT EXECUTE FUNCTION proxy_call_changed()', t);
  END LOOP;
END
$$;
