/** Shared set-up of the people product tests: one host per file and the demo logins' credentials. */
import type { Database } from '#host/db/database.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';

export interface PeopleFixture {
  t: TestHost;
  db: Database;
  demoId: string;
  otherId: string;
  adminId: string;
  editorId: string;
  memberId: string;
  /** Authorization headers: people manager, editor, viewer, a person with no people role, the other organization's admin. */
  auth: { admin: string; editor: string; viewer: string; none: string; other: string };
  /** Id of a generated demo person with no roles. */
  noRoleId: string;
}

async function one(db: Database, sql: string, params: unknown[] = []): Promise<string> {
  const { rows } = await db.query<{ id: string }>(sql, params);
  if (!rows[0]) throw new Error(`no row for ${sql}`);
  return rows[0].id;
}

export async function createPeopleFixture(options: Parameters<typeof createTestHost>[0] = {}): Promise<PeopleFixture> {
  const t = await createTestHost(options);
  const db = t.db;
  const demoId = await one(db, "SELECT id::text FROM organizations WHERE slug = 'demo'");
  const otherId = await one(db, "SELECT id::text FROM organizations WHERE slug = 'other'");
  const noRoleEmail = await one(
    db,
    "SELECT email AS id FROM people WHERE organization_id = $1 AND password_hash IS NULL AND status = 'active' ORDER BY id LIMIT 1",
    [demoId],
  );
  return {
    t,
    db,
    demoId,
    otherId,
    adminId: await personId(db, 'admin@demo.test'),
    editorId: await personId(db, 'editor@demo.test'),
    memberId: await personId(db, 'member@demo.test'),
    noRoleId: await personId(db, noRoleEmail),
    auth: {
      admin: await basicAuthFor(db, 'admin@demo.test'),
      editor: await basicAuthFor(db, 'editor@demo.test'),
      viewer: await basicAuthFor(db, 'member@demo.test'),
      none: await basicAuthFor(db, noRoleEmail),
      other: await basicAuthFor(db, 'admin@other.test'),
    },
  };
}

/** Rows of a plain SQL query (expectations are computed from these, never from the code under test). */
export async function sqlRows<T>(db: Database, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(sql, params)).rows;
}

/** Sorts rows like the API: by `key` (nulls last in both directions), ties by numeric id ascending. */
export function sortLikeApi<T extends { id: string }>(
  rows: readonly T[],
  key: (row: T) => string | number | null,
  descending = false,
): T[] {
  return [...rows].sort((a, b) => {
    const va = key(a);
    const vb = key(b);
    if (va === null && vb === null) return Number(a.id) - Number(b.id);
    if (va === null) return 1;
    if (vb === null) return -1;
    const c = va < vb ? -1 : va > vb ? 1 : 0;
    return c !== 0 ? (descending ? -c : c) : Number(a.id) - Number(b.id);
  });
}

export const FORBIDDEN_VIEWER = {
  errors: [
    {
      status: '403',
      title: 'Forbidden',
      detail: 'You do not have access to this resource',
      meta: { description: 'This request needs the people viewer role or higher' },
    },
  ],
};
export const FORBIDDEN_EDITOR = {
  errors: [
    {
      status: '403',
      title: 'Forbidden',
      detail: 'You do not have access to this resource',
      meta: { description: 'This request needs the people editor role or higher' },
    },
  ],
};
export const NOT_FOUND = {
  errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
};
