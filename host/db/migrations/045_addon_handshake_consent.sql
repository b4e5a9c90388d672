-- Proof for handshake step 3: the SHA-256 of the leg-one state for which the host's OAuth provider
-- issued an authorization code to the add-on's application for this person. Step 3 issues the host's
-- grant only when it equals the current handshake_state_hash; every new leg clears it.
ALTER TABLE addon_authorizations ADD COLUMN handshake_consent_hash text;
