/**
 * Writes of organizations, people and roles in bulk, for loading data (the demo seed, benchmarks' large
 * organizations): idempotent where the data has a natural key, one statement for many people.
 */
import type { Queryable } from '../db/database.ts';

/** The organization with this slug, created when missing; its id. */
export async function ensureOrganization(
  db: Queryable,
  org: { name: string; slug: string; createdAt: Date },
): Promise<string> {
  await db.query(
    'INSERT INTO organizations (name, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING',
    [org.name, org.slug, org.createdAt],
  );
  const { rows } = await db.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [org.slug]);
  return rows[0]!.id;
}

/** A person who signs in, and their roles per product. */
export interface LoginPerson {
  organizationId: string;
  firstName: string;
  lastName: string;
  email: string;
  siteAdministrator: boolean;
  passwordHash: string;
  createdAt: Date;
  roles: Readonly<Record<string, string>>;
}

/** Adds a login person with their product roles; their id, or undefined when the e-mail address is taken. */
export async function addLoginPerson(db: Queryable, person: LoginPerson): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO people (organization_id, first_name, last_name, email, site_administrator, password_hash, membership, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'Member', $7, $7)
     ON CONFLICT (lower(email)) WHERE email IS NOT NULL DO NOTHING RETURNING id::text`,
    [
      person.organizationId,
      person.firstName,
      person.lastName,
      person.email,
      person.siteAdministrator,
      person.passwordHash,
      person.createdAt,
    ],
  );
  const id = rows[0]?.id;
  if (id === undefined) return undefined;
  for (const [product, role] of Object.entries(person.roles)) {
    await db.query('INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, $2, $3)', [
      id,
      product,
      role,
    ]);
  }
  return id;
}

/** People to add, one array per column (index i of each array is person i); dates as ISO strings. */
export interface PeopleColumns {
  firstName: string[];
  lastName: string[];
  email: string[];
  avatarUrl: string[];
  status: string[];
  membership: string[];
  gender: string[];
  birthdate: string[];
  campusId: (string | null)[];
  createdAt: string[];
}

/** Adds the people in one statement, skipping e-mail addresses already taken; how many were added. */
export async function addPeople(db: Queryable, organizationId: string, people: PeopleColumns): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO people (organization_id, first_name, last_name, email, avatar_url, status, membership, gender, birthdate, campus_id, created_at, updated_at)
     SELECT $1, f, l, e, a, s, m, g, b::date, c::bigint, t::timestamptz, t::timestamptz
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) AS u(f, l, e, a, s, m, g, b, c, t)
     ON CONFLICT (lower(email)) WHERE email IS NOT NULL DO NOTHING`,
    [
      organizationId,
      people.firstName,
      people.lastName,
      people.email,
      people.avatarUrl,
      people.status,
      people.membership,
      people.gender,
      people.birthdate,
      people.campusId,
      people.createdAt,
    ],
  );
  return rowCount;
}

/** Every person id of the organization, ascending. */
export async function personIdsOf(db: Queryable, organizationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM people WHERE organization_id = $1 ORDER BY people.id',
    [organizationId],
  );
  return rows.map((r) => r.id);
}

/** The organization's site administrator of lowest id, or null. */
export async function firstAdministratorIdOf(db: Queryable, organizationId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM people WHERE organization_id = $1 AND site_administrator ORDER BY people.id LIMIT 1',
    [organizationId],
  );
  return rows[0]?.id ?? null;
}
