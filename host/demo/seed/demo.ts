/**
 * Deterministic demo data: "Demo Church" (administrator, editor and member logins, ~500 people,
 * campuses, categories, lists with rules, notes) and "Other Fellowship", a second organization that
 * proves isolation. Idempotent: a second run adds only what is missing (e.g. more people).
 */
import type { Database, Queryable } from '../../db/database.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import {
  addLoginPerson,
  addPeople,
  ensureOrganization,
  firstAdministratorIdOf,
  organizationIdBySlug,
  personIdsOf,
  type PeopleColumns,
} from '../../directory/index.ts';
import {
  addNotes,
  campusIdsOf,
  ensureCampuses,
  ensureListCategories,
  ensureNoteCategories,
  noteCategoryIdsOf,
  type NoteColumns,
} from '../../people/index.ts';
import { addLists } from './seed-lists.ts';
import { DAY, EPOCH, FIRST_F, FIRST_M, LAST } from './demo-names.ts';
import { pick, seededRandom } from './random.ts';

export const DEMO_ORGANIZATION = { slug: 'demo', name: 'Demo Church' } as const;
export const OTHER_ORGANIZATION = { slug: 'other', name: 'Other Fellowship' } as const;

/** The people who can log in, with their product roles. */
export const DEMO_LOGINS = [
  {
    slug: 'demo',
    email: 'admin@demo.test',
    first: 'Alex',
    last: 'Admin',
    siteAdmin: true,
    roles: { people: 'manager', api: 'manager' },
  },
  {
    slug: 'demo',
    email: 'editor@demo.test',
    first: 'Eden',
    last: 'Editor',
    siteAdmin: false,
    roles: { people: 'editor' },
  },
  {
    slug: 'demo',
    email: 'member@demo.test',
    first: 'Morgan',
    last: 'Member',
    siteAdmin: false,
    roles: { people: 'viewer' },
  },
  {
    slug: 'other',
    email: 'admin@other.test',
    first: 'Olive',
    last: 'Other',
    siteAdmin: true,
    roles: { people: 'manager', api: 'manager' },
  },
] as const;

export const DEFAULT_PEOPLE = 500;

export const MEMBERSHIPS = ['Member', 'Regular Attender', 'Visitor', 'Participant'] as const;
const CAMPUSES = { demo: ['Main Campus', 'North Campus', 'South Campus'], other: ['Downtown'] } as const;
const NOTE_CATEGORIES = ['General', 'Pastoral Care', 'Prayer Request', 'Follow-up'];
const LIST_CATEGORIES = ['Outreach', 'Care', 'Volunteers'];
/** Seed dates are fixed, not relative to today, so the data is identical everywhere. */

export interface SeedOptions {
  /** Generated people in the demo organization (besides the logins). */
  people?: number;
  /** Password of the login people, used only when they are first created. */
  password: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface SeedResult {
  /** True when the demo organization was created by this run. */
  created: boolean;
  peopleAdded: number;
}

/** Serializes seeds of several hosts starting together on one empty database (see migrate.ts's lock). */
const SEED_LOCK_KEY = 7_346_202;
/** The tables a seed writes in bulk; analyzed after it, so the first queries are planned on their real sizes. */
const SEEDED_TABLES = [
  'organizations',
  'campuses',
  'note_categories',
  'list_categories',
  'people',
  'person_product_roles',
  'lists',
  'list_rules',
  'notes',
];

/**
 * Seeds the demo data (idempotent, also when several processes seed one database at once: the first creates it,
 * the others find it), then gathers the seeded tables' statistics: on a database just seeded nothing else has, and
 * a plan chosen without them (a List run over 10,000 people) can take hundreds of times its time.
 */
export async function seedDemo(db: Database, options: SeedOptions): Promise<SeedResult> {
  const result = await seedTransaction(db, options);
  if (result.created || result.peopleAdded > 0) await db.exec(`ANALYZE ${SEEDED_TABLES.join(', ')}`);
  return result;
}

async function seedTransaction(db: Database, options: SeedOptions): Promise<SeedResult> {
  const log = options.log ?? (() => {});
  const target = options.people ?? DEFAULT_PEOPLE;
  const passwordHash = await hashPassword(options.password);
  return db.transaction(async (tx) => {
    // Held to the commit: a second seed waits here, then sees the first one's organizations.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
    const created = (await organizationIdBySlug(tx, DEMO_ORGANIZATION.slug)) === undefined;
    const demo = await ensureOrganization(tx, { ...DEMO_ORGANIZATION, createdAt: new Date(EPOCH) });
    const other = await ensureOrganization(tx, { ...OTHER_ORGANIZATION, createdAt: new Date(EPOCH) });
    for (const [slug, orgId] of [
      ['demo', demo],
      ['other', other],
    ] as const) {
      await ensureCampuses(tx, orgId, CAMPUSES[slug]);
      await ensureNoteCategories(tx, orgId, NOTE_CATEGORIES);
      await ensureListCategories(tx, orgId, LIST_CATEGORIES);
    }
    for (const login of DEMO_LOGINS) {
      await addLoginPerson(tx, {
        organizationId: login.slug === 'demo' ? demo : other,
        firstName: login.first,
        lastName: login.last,
        email: login.email,
        siteAdministrator: login.siteAdmin,
        passwordHash,
        createdAt: new Date(EPOCH),
        roles: login.roles,
      });
    }
    const peopleAdded =
      (await addGeneratedPeople(tx, demo, 'demo', target, 1)) + (await addGeneratedPeople(tx, other, 'other', 20, 2));
    if (peopleAdded) log(`seed: added ${peopleAdded} people`);
    if (created) {
      await addLists(tx, demo);
      await addLists(tx, other);
      await addGeneratedNotes(tx, demo, 300, 3);
      await addGeneratedNotes(tx, other, 10, 4);
      log('seed: added campuses, categories, lists with rules and notes');
    }
    return { created, peopleAdded };
  });
}

/** Adds generated people up to `count` (person i is always the same person). */
async function addGeneratedPeople(
  tx: Queryable,
  orgId: string,
  slug: string,
  count: number,
  seed: number,
): Promise<number> {
  const campuses = await campusIdsOf(tx, orgId);
  const cols: PeopleColumns = {
    firstName: [],
    lastName: [],
    email: [],
    avatarUrl: [],
    status: [],
    membership: [],
    gender: [],
    birthdate: [],
    campusId: [],
    createdAt: [],
  };
  const random = seededRandom(seed * 7919);
  for (let i = 1; i <= count; i++) {
    const gender = random() < 0.5 ? 'F' : 'M';
    const first = pick(random, gender === 'F' ? FIRST_F : FIRST_M);
    const last = pick(random, LAST);
    const created = EPOCH + Math.floor(random() * 700) * DAY;
    const birth = Date.UTC(1940 + Math.floor(random() * 70), Math.floor(random() * 12), 1 + Math.floor(random() * 28));
    cols.firstName.push(first);
    cols.lastName.push(last);
    cols.email.push(`${first}.${last}.${i}@${slug}.test`.toLowerCase());
    cols.avatarUrl.push(`https://avatars.${slug}.test/${i}.png`);
    cols.status.push(random() < 0.1 ? 'inactive' : 'active');
    cols.membership.push(pick(random, MEMBERSHIPS));
    cols.gender.push(gender);
    cols.birthdate.push(new Date(birth).toISOString().slice(0, 10));
    cols.campusId.push(random() < 0.9 ? pick(random, campuses) : null);
    cols.createdAt.push(new Date(created).toISOString());
  }
  return addPeople(tx, orgId, cols);
}

const NOTE_TEXTS = [
  'Called to check in.',
  'Asked for prayer for their family.',
  'Interested in volunteering.',
  'Visited after surgery.',
  'New to the area.',
  'Wants to join a small group.',
];

/** Adds `count` generated Notes about the organization's people, written by its first administrator. */
async function addGeneratedNotes(tx: Queryable, orgId: string, count: number, seed: number): Promise<void> {
  const random = seededRandom(seed * 104729);
  // Drawn from in the ids' text order, as the seed always has ("10" before "9"): the demo data stays the same.
  const people = (await personIdsOf(tx, orgId)).sort();
  const categories = await noteCategoryIdsOf(tx, orgId);
  const admin = await firstAdministratorIdOf(tx, orgId);
  const notes: NoteColumns = { personId: [], noteCategoryId: [], note: [], at: [] };
  for (let i = 0; i < count; i++) {
    notes.personId.push(pick(random, people));
    notes.noteCategoryId.push(pick(random, categories));
    notes.note.push(pick(random, NOTE_TEXTS));
    notes.at.push(new Date(EPOCH + Math.floor(random() * 700) * DAY + Math.floor(random() * DAY)).toISOString());
  }
  await addNotes(tx, orgId, admin, notes);
}
