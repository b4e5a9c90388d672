/**
 * Writes of campuses, list categories and Lists in bulk, for loading data (the demo seed): idempotent where the
 * data has a natural key (an organization's campus or category name).
 */
import type { Queryable } from '../db/database.ts';

/** The organization's campuses with these names, created when missing. */
export async function ensureCampuses(db: Queryable, organizationId: string, names: readonly string[]): Promise<void> {
  await db.query(
    'INSERT INTO campuses (organization_id, name) SELECT $1, n FROM unnest($2::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i ON CONFLICT DO NOTHING',
    [organizationId, names],
  );
}

/** The ids of the organization's campuses, ascending. */
export async function campusIdsOf(db: Queryable, organizationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM campuses WHERE organization_id = $1 ORDER BY campuses.id',
    [organizationId],
  );
  return rows.map((r) => r.id);
}

/** The organization's list categories with these names, created when missing. */
export async function ensureListCategories(
  db: Queryable,
  organizationId: string,
  names: readonly string[],
): Promise<void> {
  await db.query(
    'INSERT INTO list_categories (organization_id, name) SELECT $1, n FROM unnest($2::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i ON CONFLICT DO NOTHING',
    [organizationId, names],
  );
}

/** The id of the organization's list category with this name, or null. */
export async function listCategoryIdByName(
  db: Queryable,
  organizationId: string,
  name: string,
): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id::text FROM list_categories WHERE organization_id = $1 AND name = $2',
    [organizationId, name],
  );
  return rows[0]?.id ?? null;
}

/** A List to add with its rules (attribute, operator, value), in order. */
export interface NewList {
  organizationId: string;
  campusId: string | null;
  listCategoryId: string | null;
  name: string;
  description: string;
  subset: 'all' | 'any';
  createdById: string | null;
  createdAt: Date;
  rules: readonly (readonly [string, string, string])[];
}

/** Adds the List (never run) and its rules; its id. */
export async function addListWithRules(db: Queryable, list: NewList): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO lists (organization_id, campus_id, list_category_id, name, description, subset, created_by_id, updated_by_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $8) RETURNING id::text`,
    [
      list.organizationId,
      list.campusId,
      list.listCategoryId,
      list.name,
      list.description,
      list.subset,
      list.createdById,
      list.createdAt,
    ],
  );
  const id = rows[0]!.id;
  for (const [position, [attribute, operator, value]] of list.rules.entries()) {
    await db.query(
      'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
      [id, attribute, operator, value, position],
    );
  }
  return id;
}
