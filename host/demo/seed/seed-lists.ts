/** The demo organization's Lists (seeded with rules, not run: the demo runs them once at start). */
import type { Queryable } from '../../db/database.ts';
import { firstAdministratorIdOf } from '../../directory/index.ts';
import { addListWithRules, campusIdsOf, listCategoryIdByName } from '../../people/index.ts';
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
  const admin = await firstAdministratorIdOf(tx, orgId);
  const firstCampus = (await campusIdsOf(tx, orgId))[0] ?? null;
  for (const list of demoLists(firstCampus)) {
    await addListWithRules(tx, {
      organizationId: orgId,
      campusId: list.campus ? firstCampus : null,
      listCategoryId: await listCategoryIdByName(tx, orgId, list.category),
      name: list.name,
      description: list.description,
      subset: list.subset,
      createdById: admin,
      createdAt: new Date(EPOCH),
      rules: list.rules,
    });
  }
}
