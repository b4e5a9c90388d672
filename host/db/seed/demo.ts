/**
 * Deterministic demo data: "Demo Church" (administrator, editor and member logins, ~500 people,
 * campuses, categories, lists with rules, notes) and "Other Fellowship", a second organization that
 * proves isolation. Idempotent: a second run adds only what is missing (e.g. more people).
 */
import type { Database, Queryable } from '../database.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { addLists } from './demo-lists.ts';
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
    const created =
      (await tx.query('SELECT 1 FROM organizations WHERE slug = $1', [DEMO_ORGANIZATION.slug])).rows.length === 0;
    const demo = await ensureOrganization(tx, DEMO_ORGANIZATION);
    const other = await ensureOrganization(tx, OTHER_ORGANIZATION);
    for (const [slug, orgId] of [
      ['demo', demo],
      ['other', other],
    ] as const) {
      for (const name of CAMPUSES[slug])
        await tx.query('INSERT INTO campuses (organization_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          orgId,
          name,
        ]);
      for (const name of NOTE_CATEGORIES)
        await tx.query('INSERT INTO note_categories (organization_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          orgId,
          name,
        ]);
      for (const name of LIST_CATEGORIES)
        await tx.query('INSERT INTO list_categories (organization_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          orgId,
          name,
        ]);
    }
    for (const login of DEMO_LOGINS) {
      const orgId = login.slug === 'demo' ? demo : other;
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO people (organization_id, first_name, last_name, email, site_administrator, password_hash, membership, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'Member', $7, $7)
         ON CONFLICT (lower(email)) WHERE email IS NOT NULL DO NOTHING RETURNING id::text`,
        [orgId, login.first, login.last, login.email, login.siteAdmin, passwordHash, new Date(EPOCH)],
      );
      if (!rows[0]) continue;
      for (const [product, role] of Object.entries(login.roles)) {
        await tx.query('INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, $2, $3)', [
          rows[0].id,
          product,
          role,
        ]);
      }
    }
    const peopleAdded = (await addPeople(tx, demo, 'demo', target, 1)) + (await addPeople(tx, other, 'other', 20, 2));
    if (peopleAdded) log(`seed: added ${peopleAdded} people`);
    if (created) {
      await addLists(tx, demo);
      await addLists(tx, other);
      await addNotes(tx, demo, 300, 3);
      await addNotes(tx, other, 10, 4);
      log('seed: added campuses, categories, lists with rules and notes');
    }
    return { created, peopleAdded };
  });
}

async function ensureOrganization(tx: Queryable, org: { slug: string; name: string }): Promise<string> {
  await tx.query(
    'INSERT INTO organizations (name, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING',
    [org.name, org.slug, new Date(EPOCH)],
  );
  const { rows } = await tx.query<{ id: string }>('SELECT id::text FROM organizations WHERE slug = $1', [org.slug]);
  return rows[0]!.id;
}

/** Adds generated people up to `count` (person i is always the same person). */
async function addPeople(tx: Queryable, orgId: string, slug: string, count: number, seed: number): Promise<number> {
  const campuses = (
    await tx.query<{ id: string }>('SELECT id::text FROM campuses WHERE organization_id = $1 ORDER BY id', [orgId])
  ).rows.map((r) => r.id);
  const cols = {
    first: [] as string[],
    last: [] as string[],
    email: [] as string[],
    avatar: [] as string[],
    status: [] as string[],
    membership: [] as string[],
    gender: [] as string[],
    birthdate: [] as string[],
    campus: [] as (string | null)[],
    created: [] as string[],
  };
  const random = seededRandom(seed * 7919);
  for (let i = 1; i <= count; i++) {
    const gender = random() < 0.5 ? 'F' : 'M';
    const first = pick(random, gender === 'F' ? FIRST_F : FIRST_M);
    const last = pick(random, LAST);
    const created = EPOCH + Math.floor(random() * 700) * DAY;
    const birth = Date.UTC(1940 + Math.floor(random() * 70), Math.floor(random() * 12), 1 + Math.floor(random() * 28));
    cols.first.push(first);
    cols.last.push(last);
    cols.email.push(`${first}.${last}.${i}@${slug}.test`.toLowerCase());
    cols.avatar.push(`https://avatars.${slug}.test/${i}.png`);
    cols.status.push(random() < 0.1 ? 'inactive' : 'active');
    cols.membership.push(pick(random, MEMBERSHIPS));
    cols.gender.push(gender);
    cols.birthdate.push(new Date(birth).toISOString().slice(0, 10));
    cols.campus.push(random() < 0.9 ? pick(random, campuses) : null);
    cols.created.push(new Date(created).toISOString());
  }
  const { rowCount } = await tx.query(
    `INSERT INTO people (organization_id, first_name, last_name, email, avatar_url, status, membership, gender, birthdate, campus_id, created_at, updated_at)
     SELECT $1, f, l, e, a, s, m, g, b::date, c::bigint, t::timestamptz, t::timestamptz
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) AS u(f, l, e, a, s, m, g, b, c, t)
     ON CONFLICT (lower(email)) WHERE email IS NOT NULL DO NOTHING`,
    [
      orgId,
      cols.first,
      cols.last,
      cols.email,
      cols.avatar,
      cols.status,
      cols.membership,
      cols.gender,
      cols.birthdate,
      cols.campus,
      cols.created,
    ],
  );
  return rowCount;
}

async function addNotes(tx: Queryable, orgId: string, count: number, seed: number): Promise<void> {
  const random = seededRandom(seed * 104729);
  const people = (
    await tx.query<{ id: string }>('SELECT id::text FROM people WHERE organization_id = $1 ORDER BY id', [orgId])
  ).rows.map((r) => r.id);
  const categories = (
    await tx.query<{ id: string }>('SELECT id::text FROM note_categories WHERE organization_id = $1 ORDER BY id', [
      orgId,
    ])
  ).rows.map((r) => r.id);
  const admin =
    (
      await tx.query<{ id: string }>(
        'SELECT id::text FROM people WHERE organization_id = $1 AND site_administrator ORDER BY id LIMIT 1',
        [orgId],
      )
    ).rows[0]?.id ?? null;
  const texts = [
    'Called to check in.',
    'Asked for prayer for their family.',
    'Interested in volunteering.',
    'Visited after surgery.',
    'New to the area.',
    'Wants to join a small group.',
  ];
  const person: string[] = [],
    category: string[] = [],
    note: string[] = [],
    at: string[] = [];
  for (let i = 0; i < count; i++) {
    person.push(pick(random, people));
    category.push(pick(random, categories));
    note.push(pick(random, texts));
    at.push(new Date(EPOCH + Math.floor(random() * 700) * DAY + Math.floor(random() * DAY)).toISOString());
  }
  await tx.query(
    `INSERT INTO notes (organization_id, person_id, created_by_id, note_category_id, note, display_date, created_at, updated_at)
     SELECT $1, p::bigint, $2, c::bigint, n, t::timestamptz, t::timestamptz, t::timestamptz
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(p, c, n, t)`,
    [orgId, admin, person, category, note, at],
  );
}
