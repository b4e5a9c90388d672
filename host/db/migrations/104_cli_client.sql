-- The platform's own OAuth clients, which no organization owns (organization_id NULL): the addon-kit CLI signs in
-- to the host it talks to through the host's OAuth server, as a public native client with PKCE and a loopback
-- redirect on a port chosen at run time (RFC 8252 §7.3: the port of a loopback redirect URI may vary).
ALTER TABLE oauth_applications ALTER COLUMN organization_id DROP NOT NULL;
-- RFC 7591 application_type: `native` lets a loopback redirect URI match on any port (oidc-provider does so only
-- for native clients); custom-scheme redirects make a client native too (host/oauth/client-adapter.ts).
ALTER TABLE oauth_applications
  ADD COLUMN application_type text NOT NULL DEFAULT 'web' CHECK (application_type IN ('web', 'native'));
INSERT INTO oauth_applications (organization_id, name, description, url, client_id, public, redirect_uris, application_type)
VALUES (
  NULL,
  'addon-kit CLI',
  'The addon-kit command line: registers and develops add-ons of your organization (addon-kit login).',
  '',
  'addon-kit-cli',
  true,
  ARRAY['http://127.0.0.1/callback'],
  'native'
);
