/**
 * Handshake step 1's proof (the consent step): when the host's provider issues an authorization code, and its state is
 * the running leg-one state of a vault row, the row is marked (`handshake_consent_hash` = the state's
 * digest) — but only if the code is for that row's person, the add-on's own OAuth application, the
 * installation's redirect_url, and every add-on scope. Step 3 issues the host's grant only for a
 * marked state, so neither a dropped `error=access_denied` nor a visit to `/advance` that skipped the
 * host's consent yields a grant.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import { findOAuthApplicationByClientId } from '../../oauth/applications.ts';
import type { CodeIssuedListener } from '../../oauth/code-issued.ts';
import type { AuthorizationStore } from '../authorizations/index.ts';
import { loadInstallation } from '../registry/index.ts';

/** SHA-256 (hex) of a handshake state, as stored in `addon_authorizations`. */
export function handshakeStateDigest(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** The listener that records the host's consent to a running handshake (see the file header). */
export function recordServiceConsent(db: Queryable, store: AuthorizationStore): CodeIssuedListener {
  return async (issued) => {
    if (!issued.state) return;
    const hash = handshakeStateDigest(issued.state);
    const row = await store.findLegOne(hash, issued.accountId);
    if (!row) return;
    const [installation, application] = await Promise.all([
      loadInstallation(db, row.installationId),
      findOAuthApplicationByClientId(db, issued.clientId),
    ]);
    if (!installation || !application || installation.oauthApplicationId !== application.id) return;
    if (installation.integratorOAuth.redirect_url !== issued.redirectUri) return;
    const granted = new Set(issued.scope.split(' ').filter(Boolean));
    if (!installation.scopes.every((s) => granted.has(s))) return;
    await store.markConsent(row.id, hash);
  };
}
