/** A person with their organization and product roles, read in one statement (alias `p`, organization `o`). */
import type { Queryable } from '../db/database.ts';

export type ProductRole = 'viewer' | 'editor' | 'manager';

export interface PersonRecord {
  id: string;
  organization_id: string;
  organization_name: string;
  first_name: string;
  last_name: string;
  email: string | null;
  avatar_url: string | null;
  site_administrator: boolean;
  status: 'active' | 'inactive';
  /** Role per product; a product missing here means no access. */
  roles: Record<string, ProductRole>;
}

/**
 * The statement reading people as PersonRecord (alias `p`, organization `o`); `columns` and `join` add what
 * a caller reads in the same statement (e.g. the personal access token it authenticates by).
 */
export function personSql(extra: { columns?: string; join?: string } = {}): string {
  return `
  SELECT p.id::text, p.organization_id::text, o.name AS organization_name, p.first_name, p.last_name, p.email,
         p.avatar_url, p.site_administrator, p.status${extra.columns ? `, ${extra.columns}` : ''},
         COALESCE((SELECT json_object_agg(r.product, r.role) FROM person_product_roles r WHERE r.person_id = p.id), '{}'::json) AS roles
  FROM people p JOIN organizations o ON o.id = p.organization_id${extra.join ? ` ${extra.join}` : ''}`;
}

const PERSON_SQL = personSql();

/** Loads a person by id with their organization and roles. */
export async function loadPerson(db: Queryable, personId: string | number): Promise<PersonRecord | undefined> {
  const { rows } = await db.query<PersonRecord>(`${PERSON_SQL} WHERE p.id = $1`, [String(personId)]);
  return rows[0];
}

/** Loads a person by e-mail (case-insensitive). */
export async function loadPersonByEmail(
  db: Queryable,
  email: string,
): Promise<(PersonRecord & { password_hash: string | null }) | undefined> {
  const { rows } = await db.query<PersonRecord & { password_hash: string | null }>(
    `${personSql({ columns: 'p.password_hash' })} WHERE lower(p.email) = lower($1)`,
    [email],
  );
  return rows[0];
}
