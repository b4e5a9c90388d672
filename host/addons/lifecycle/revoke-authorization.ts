/**
 * A person revokes their authorization of an installation (the JSON route and the account page both call this):
 * in one transaction the authorization row is deleted (both token sets with it; the next use starts a new
 * handshake) and, unless it was `uninitialized`, the `addon.authorization.revoked` lifecycle event is recorded;
 * then the host grant the add-on held is revoked at the host's provider, so its tokens stop working at once.
 */
import type Provider from 'oidc-provider';
import type { PersonRecord } from '../../auth/person.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import { revokeIssuedTokens } from '../../oauth/revoke-tokens.ts';
import type { AuthorizationRow, TokenVault } from '../authorizations/index.ts';
import type { Clock } from '../clock.ts';
import type { Installation } from '../registry/index.ts';
import { recordAddonLifecycleEvent } from './lifecycle-events.ts';

/** What a revocation needs. */
export interface RevokeDeps {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  provider: Provider;
  clock: Clock;
  logger: Logger;
}

/** Revokes the person's authorization of the installation; the row deleted, undefined when they had none. */
export async function revokeAuthorization(
  deps: RevokeDeps,
  installation: Installation,
  person: PersonRecord,
): Promise<AuthorizationRow | undefined> {
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
  return revoked;
}
