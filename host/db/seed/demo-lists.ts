/** The demo organization's Lists (seeded with rules, not run: the demo runs them once at start). */
import type { Queryable } from '../database.ts';
import { EPOCH } from './demo-names.ts';

/** The demo's Lists: a category by name, whether on the first campus, and their rules (attribute, operator, value). */
interface DemoList {
  name: string;
  description: string;
  subset: 'all' | 'any';
  category: string;
  campus: boolean;
  rules: [string, string, string][];
}

function demoLists(firstCampus: string | null): DemoList[] {
  return [
    {
      name: 'Members at the first campus',
      description: 'Members whose campus is the first campus',
      subset: 'all',
      category: 'Outreach',
      campus: true,
      rules: [
        ['membership', 'is', 'Member'],
        ['campus_id', 'is', firstCampus ?? ''],
      ],
    },
    {
      name: 'Women over 40',
      description: 'Women aged 40 or more',
      subset: 'all',
      category: 'Care',
      campus: false,
      rules: [
        ['gender', 'is', 'F'],
        ['age', 'greater_than_or_equal', '40'],
      ],
    },
    {
      name: 'Prayer requests',
      description: 'People with a prayer request note',
      subset: 'all',
      category: 'Care',
      campus: false,
      rules: [['note_category', 'is', 'Prayer Request']],
    },
    {
      name: 'Visitors or participants',
      description: 'Visitors and participants',
      subset: 'any',
      category: 'Volunteers',
      campus: false,
      rules: [
        ['membership', 'is', 'Visitor'],
        ['membership', 'is', 'Participant'],
      ],
    },
  ];
}

/** The demo organization's Lists with their rules, created by its first administrator. */
export async function addLists(tx: Queryable, orgId: string): Promise<void> {
  const categoryId = async (name: string) =>
    (
      await tx.query<{ id: string }>('SELECT id::text FROM list_categories WHERE organization_id = $1 AND name = $2', [
        orgId,
        name,
      ])
    ).rows[0]?.id ?? null;
  const admin =
    (
      await tx.query<{ id: string }>(
        'SELECT id::text FROM people WHERE organization_id = $1 AND site_administrator ORDER BY id LIMIT 1',
        [orgId],
      )
    ).rows[0]?.id ?? null;
  const firstCampus =
    (
      await tx.query<{ id: string }>('SELECT id::text FROM campuses WHERE organization_id = $1 ORDER BY id LIMIT 1', [
        orgId,
      ])
    ).rows[0]?.id ?? null;
  const lists = demoLists(firstCampus);
  for (const list of lists) {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO lists (organization_id, campus_id, list_category_id, name, description, subset, created_by_id, updated_by_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $8) RETURNING id::text`,
      [
        orgId,
        list.campus ? firstCampus : null,
        await categoryId(list.category),
        list.name,
        list.description,
        list.subset,
        admin,
        new Date(EPOCH),
      ],
    );
    for (const [position, [attribute, operator, value]] of list.rules.entries()) {
      await tx.query(
        'INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, $2, $3, $4, $5)',
        [rows[0]!.id, attribute, operator, value, position],
      );
    }
  }
}
