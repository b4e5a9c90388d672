/** Rows the developer-account API reads, inserted directly (what the OAuth provider writes in use). */
import type { Database } from '#host/db/database.ts';

/** The id of an organization by slug. */
export async function organizationId(db: Database, slug: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [slug]);
  if (!rows[0]) throw new Error(`no organization ${slug}`);
  return rows[0].id;
}

/** An OAuth application of `organization`; returns its id. */
export async function insertApplication(
  db: Database,
  organization: string,
  name: string,
  extra: { description?: string; url?: string } = {},
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO oauth_applications (organization_id, name, description, url, client_id, redirect_uris)
     VALUES ($1, $2, $3, $4, $5, ARRAY['https://app.example/callback']) RETURNING id::text`,
    [
      organization,
      name,
      extra.description ?? `${name} description`,
      extra.url ?? `https://${name.toLowerCase().replace(/\W+/g, '-')}.example`,
      `client-${name}-${Math.random()}`,
    ],
  );
  return rows[0]!.id;
}

/** A person's authorization of an application. */
export async function insertConnection(
  db: Database,
  applicationId: string,
  personId: string,
  scopes: string[],
  connectedAt: string,
): Promise<void> {
  await db.query(
    `INSERT INTO oauth_connections (application_id, person_id, organization_id, scopes, connected_at)
     SELECT $1, id, organization_id, $3, $4 FROM people WHERE id = $2`,
    [applicationId, personId, scopes, connectedAt],
  );
}

/** Sets who in `organization` may connect the application. */
export async function setAccessMode(
  db: Database,
  organization: string,
  applicationId: string,
  mode: string,
): Promise<void> {
  await db.query(
    'INSERT INTO connected_application_settings (organization_id, application_id, access_mode) VALUES ($1, $2, $3)',
    [organization, applicationId, mode],
  );
}

/** Records that `personId` was issued a token for the application in that month. */
export async function insertMonthlyActiveUser(
  db: Database,
  applicationId: string,
  personId: string,
  year: number,
  month: number,
): Promise<void> {
  await db.query(
    'INSERT INTO oauth_monthly_active_users (application_id, person_id, year, month) VALUES ($1, $2, $3, $4)',
    [applicationId, personId, year, month],
  );
}

/** Ids of `count` people of an organization who are not site administrators, by id. */
export async function somePeople(db: Database, organization: string, count: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM people WHERE organization_id = $1 AND NOT site_administrator AND avatar_url IS NOT NULL ORDER BY id LIMIT $2',
    [organization, count],
  );
  return rows.map((r) => r.id);
}
