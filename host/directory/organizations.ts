/** Organizations looked up by their slug, and the first administrator the demo acts as. */
import type { Queryable } from '../db/database.ts';

/** The id of the organization with this slug, or undefined. */
export async function organizationIdBySlug(db: Queryable, slug: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [slug]);
  return rows[0]?.id;
}

/** The organization with this slug and its site administrator of lowest id, or undefined when either is missing. */
export async function firstAdministratorOf(
  db: Queryable,
  slug: string,
): Promise<{ organization_id: string; person_id: string } | undefined> {
  const { rows } = await db.query<{ organization_id: string; person_id: string }>(
    `SELECT o.id::text AS organization_id, p.id::text AS person_id FROM organizations o JOIN people p ON p.organization_id = o.id
     WHERE o.slug = $1 AND p.site_administrator ORDER BY p.id LIMIT 1`,
    [slug],
  );
  return rows[0];
}
