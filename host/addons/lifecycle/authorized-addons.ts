/**
 * The add-ons a person may revoke (the account page's list): their authorizations past `uninitialized`
 * (authorizations/) named by the registry's `installationLabelSql` — joined here, above both rooms.
 */
import type { Queryable } from '../../db/database.ts';
import { listPersonAuthorizations, type PersonAuthorization } from '../authorizations/index.ts';
import { installationLabelSql } from '../registry/index.ts';

/** The person's authorized add-ons, by name and environment. */
export function authorizedAddons(
  db: Queryable,
  person: { id: string; organization_id: string },
): Promise<PersonAuthorization[]> {
  return listPersonAuthorizations(db, person, installationLabelSql);
}
