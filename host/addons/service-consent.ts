/**
 * Handshake step 1's proof: when the host's provider issues an authorization code, and its state is
 * the running leg-one state of a vault row, the row is marked (`handshake_consent_hash` = the state's
 * digest) — but only if the code is for that row's person, the add-on's own OAuth application, the
 * installation's redirect_url, and every add-on scope. Step 3 issues the host's grant only for a
 * marked state, so neither a dropped `error=access_denied` nor a visit to `/advance` that skipped the
 * host's consent yields a grant.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import type { CodeIssuedListener } from '../oauth/code-issued.ts';
import { loadInstallation } from './installations.ts';

/** SHA-256 (hex) of a handshake state, as stored in `addon_authorizations`. */
export function handshakeStateDigest(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** The listener that records the host's consent to a running handshake (see the file header). */
export function recordServiceConsent(db: Queryable): CodeIssuedListener {
  return async (issued) => {
    if (!issued.state) return;
    const hash = handshakeStateDigest(issued.state);
    // Leg one carries no PKCE verifier; leg two's state never goes to the host's /oauth/authorize.
    const { rows } = await db.query<{ id: string; installation_id: string; oauth_application_id: string }>(
      `SELECT r.id::text, r.installation_id::text, a.oauth_application_id::text
       FROM addon_authorizations r
       JOIN addon_installations i ON i.id = r.installation_id
       JOIN addons a ON a.id = i.addon_id
       JOIN oauth_applications o ON o.id = a.oauth_application_id
       WHERE r.handshake_state_hash = $1 AND r.handshake_code_verifier_encrypted IS NULL
         AND r.person_id::text = $2 AND o.client_id = $3`,
      [hash, issued.accountId, issued.clientId],
    );
    const row = rows[0];
    if (!row) return;
    const installation = await loadInstallation(db, row.installation_id);
    if (!installation || installation.oauthApplicationId !== row.oauth_application_id) return;
    if (installation.integratorOAuth.redirect_url !== issued.redirectUri) return;
    const granted = new Set(issued.scope.split(' ').filter(Boolean));
    if (!installation.scopes.every((s) => granted.has(s))) return;
    await db.query('UPDATE addon_authorizations SET handshake_consent_hash = $2, updated_at = now() WHERE id = $1 AND handshake_state_hash = $2', [row.id, hash]);
  };
}
