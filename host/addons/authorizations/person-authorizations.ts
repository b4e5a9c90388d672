/**
 * The add-ons a person has authorized, for their account page: each of their `addon_authorizations` rows past
 * `uninitialized` whose installation their organization still sees, named by the registry's SQL piece — passed in
 * (`installationLabelSql`, by lifecycle/authorized-addons.ts), as the registry sits above this room.
 */
import type { Queryable } from '../../db/database.ts';
import type { Environment } from '../config.ts';
import type { AuthorizationState } from './states.ts';

/** One authorized add-on as the account page lists it. */
export interface PersonAuthorization {
  installationId: string;
  /** The add-on's name (its OAuth application's). */
  name: string;
  environment: Environment;
  state: Exclude<AuthorizationState, 'uninitialized'>;
  /** When the person last completed the handshake; null while none has (a handshake under way). */
  authorizedAt: Date | null;
  updatedAt: Date;
}

/**
 * SQL: installation `id` of organization `org` (SQL expressions) as `{name, environment}` JSON while the organization
 * sees it, null otherwise.
 */
export type InstallationLabelSql = (org: string, id: string) => string;

/** The person's authorizations (not `uninitialized`) of installations visible to their organization, by name. */
export async function listPersonAuthorizations(
  db: Queryable,
  person: { id: string; organization_id: string },
  installationLabelSql: InstallationLabelSql,
): Promise<PersonAuthorization[]> {
  const { rows } = await db.query<{
    installation_id: string;
    label: { name: string; environment: Environment };
    state: PersonAuthorization['state'];
    authorized_at: Date | null;
    updated_at: Date;
  }>(
    // `authz`: the registry's piece has its own `i`, `a`, `v` and `o`.
    `SELECT x.* FROM (SELECT authz.id, authz.installation_id::text, authz.state, authz.authorized_at, authz.updated_at,
       ${installationLabelSql('$2::bigint', 'authz.installation_id')} AS label
     FROM addon_authorizations authz WHERE authz.person_id = $1 AND authz.state <> 'uninitialized') x
     WHERE x.label IS NOT NULL ORDER BY x.label->>'name', x.label->>'environment', x.id`,
    [person.id, person.organization_id],
  );
  return rows.map((r) => ({
    installationId: r.installation_id,
    name: r.label.name,
    environment: r.label.environment,
    state: r.state,
    authorizedAt: r.authorized_at,
    updatedAt: r.updated_at,
  }));
}
