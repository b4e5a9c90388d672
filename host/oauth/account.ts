/** oidc-provider's `findAccount`: people of the host, with the identity claims of the spec. */
import { errors, type Account, type FindAccount } from 'oidc-provider';
import { displayName, loadPerson, type PersonRecord } from '../auth/person.ts';
import type { Queryable } from '../db/database.ts';
import { findAccessRefusal, refusalDescription, refusalOf } from './application-access.ts';
import { takePrefetchedAccount } from './provider-records/index.ts';

/** The claims of a person: ID token and userinfo carry exactly these. */
export function personClaims(person: PersonRecord) {
  return {
    sub: person.id,
    name: displayName(person),
    email: person.email,
    organization_id: person.organization_id,
    organization_name: person.organization_name,
  };
}

/**
 * Finds an active person by id (the OpenID `sub`); inactive people have no account. Called with a
 * token (code exchange, refresh, userinfo), it also applies the organization's access_mode for the
 * token's application at that moment: a person no longer admitted gets `invalid_grant` at the token
 * endpoint and `invalid_token` at userinfo. Nothing is revoked, so admitting them again restores
 * the connection. @see RFC 6749 §5.2, RFC 6750 §3.1
 */
export function accountFinder(db: Queryable): FindAccount {
  return async (ctx, sub, token): Promise<Account | undefined> => {
    // A refresh grant read both with its refresh token (provider-records/refresh-reads.ts).
    const prefetched = token?.clientId ? takePrefetchedAccount(ctx, sub, token.clientId) : undefined;
    // Otherwise both reads at once (two round trips side by side, not one after the other): a refusal
    // found for someone who turns out not to be an active person is never used.
    const [person, refusal] = prefetched
      ? [prefetched.person, refusalOf(prefetched.access)]
      : await Promise.all([
          loadPerson(db, sub),
          token?.clientId ? findAccessRefusal(db, { personId: sub, clientId: token.clientId }) : undefined,
        ]);
    if (!person || person.status !== 'active') return undefined;
    if (token?.clientId) {
      if (refusal) {
        // oidc-provider keeps its own generic description unless told otherwise.
        const error = token.kind === 'AccessToken' ? new errors.InvalidToken() : new errors.InvalidGrant();
        throw Object.assign(error, { error_description: refusalDescription(refusal.mode) });
      }
    }
    return { accountId: person.id, claims: () => personClaims(person) };
  };
}
