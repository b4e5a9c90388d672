/**
 * `POST /addons/installations/{id}/revoke` (session cookie + `X-CSRF-Token` + the host's exact `Origin`): the person
 * revokes their authorization of the add-on. In one transaction the authorization row is deleted (both token sets
 * with it; the next use starts a new handshake) and the `addon.authorization.revoked` lifecycle event is recorded;
 * then the host grant the add-on held is revoked at the host's provider, so its tokens stop working at once.
 * Answers `200 {"state":"uninitialized"}`, also when there was nothing to revoke (no event then).
 */
import type { RequestHandler } from 'express';
import type Provider from 'oidc-provider';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import { revokeIssuedTokens } from '../../oauth/revoke-tokens.ts';
import type { TokenVault } from '../authorizations/index.ts';
import type { Clock } from '../clock.ts';
import { installationOf } from '../registry/index.ts';
import { addonPersonOf } from '../session-gate.ts';
import { recordAddonLifecycleEvent } from './lifecycle-events.ts';

/** What the route needs. */
export interface RevokeRouteDeps {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  provider: Provider;
  clock: Clock;
  logger: Logger;
}

/** The person's revocation of an installation's authorization. */
export function revokeAuthorizationRoute(deps: RevokeRouteDeps): RequestHandler {
  return async (req, res) => {
    const person = addonPersonOf(req);
    const installation = await installationOf(deps.db, String(req.params.id), person);
    const revoked = await deps.db.transaction(async (tx) => {
      const found = await deps.vault.store.revoke(installation.id, person.id, tx);
      if (!found) return undefined;
      if (found.row.state !== 'uninitialized') {
        await recordAddonLifecycleEvent(tx, deps.box, {
          name: 'addon.authorization.revoked',
          installation,
          personId: person.id,
          integratorSubject: found.subject,
          occurredAt: new Date(deps.clock.now()),
        });
      }
      return found.row;
    });
    if (revoked?.service_access_token_encrypted) {
      try {
        const { service } = await deps.vault.fromRow(revoked);
        if (service) await revokeIssuedTokens(deps.provider, service);
      } catch (error) {
        // The row is gone either way; the grant's tokens then expire on their own.
        deps.logger.warn({ err: error, installationId: installation.id }, 'host grant of a revoked add-on not revoked');
      }
    }
    res.set('Cache-Control', 'no-store').json({ state: 'uninitialized' });
  };
}
