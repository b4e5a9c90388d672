/** oidc-provider's `findAccount`: people of the host, with the identity claims of the spec. */
import type { Account, FindAccount } from 'oidc-provider';
import { displayName, loadPerson, type PersonRecord } from '../auth/person.ts';
import type { Queryable } from '../db/database.ts';

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

/** Finds an active person by id (the OpenID `sub`); inactive people have no account. */
export function accountFinder(db: Queryable): FindAccount {
  return async (_ctx, sub): Promise<Account | undefined> => {
    const person = await loadPerson(db, sub);
    if (!person || person.status !== 'active') return undefined;
    return { accountId: person.id, claims: () => personClaims(person) };
  };
}
