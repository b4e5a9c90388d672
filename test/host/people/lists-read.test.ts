import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import {
  createPeopleFixture,
  FORBIDDEN_VIEWER,
  NOT_FOUND,
  sortLikeApi,
  sqlRows,
  type PeopleFixture,
} from './people-fixture.ts';

let f: PeopleFixture;
/** Demo list ids by short name: seeded L1–L4, added L5–L7. */
const L: Record<string, string> = {};
let otherList: string;
const campus: Record<string, string> = {};
const category: Record<string, string> = {};

const get = (path: string, auth = f.auth.admin) => f.t.api().get(path).set('Authorization', auth);
const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);
const sorted = (values: string[]) => [...values].sort((a, b) => Number(a) - Number(b));
const one = async (sql: string, params: unknown[]) => (await sqlRows<{ id: string }>(f.db, sql, params))[0]!.id;

async function addList(values: {
  name: string;
  description: string;
  campus: string | null;
  category: string | null;
  autoRefresh: boolean;
  frequency: string;
  createdBy: string;
  createdAt: string;
  status?: string;
  invalid?: boolean;
  total?: number;
}) {
  return one(
    `INSERT INTO lists (organization_id, name, description, campus_id, list_category_id, auto_refresh, auto_refresh_frequency, created_by_id, updated_by_id, created_at, updated_at, status, invalid, total_people)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $9, $10, $11, $12) RETURNING id::text`,
    [
      f.demoId,
      values.name,
      values.description,
      values.campus,
      values.category,
      values.autoRefresh,
      values.frequency,
      values.createdBy,
      values.createdAt,
      values.status ?? 'never_run',
      values.invalid ?? false,
      values.total ?? 0,
    ],
  );
}

beforeAll(async () => {
  f = await createPeopleFixture();
  for (const [key, name] of [
    ['L1', 'Members at the first campus'],
    ['L2', 'Women over 40'],
    ['L3', 'Prayer requests'],
    ['L4', 'Visitors or participants'],
  ]) {
    L[key!] = await one('SELECT id::text FROM lists WHERE organization_id = $1 AND name = $2', [f.demoId, name]);
  }
  otherList = await one('SELECT id::text FROM lists WHERE organization_id = $1 ORDER BY lists.id LIMIT 1', [f.otherId]);
  for (const name of ['Main Campus', 'North Campus', 'South Campus'])
    campus[name] = await one('SELECT id::text FROM campuses WHERE organization_id = $1 AND name = $2', [
      f.demoId,
      name,
    ]);
  for (const name of ['Outreach', 'Care', 'Volunteers'])
    category[name] = await one('SELECT id::text FROM list_categories WHERE organization_id = $1 AND name = $2', [
      f.demoId,
      name,
    ]);

  for (const key of ['L1', 'L2'])
    expect((await f.t.api().post(`/people/v2/lists/${L[key]}/run`).set('Authorization', f.auth.admin)).status).toBe(
      200,
    );
  // Fixed run times (the runs above used the real clock) so ordering by them is deterministic.
  await f.db.query('UPDATE lists SET refreshed_at = $2, batch_completed_at = $2 WHERE id = $1', [
    L.L1,
    '2025-02-01T10:00:00Z',
  ]);
  await f.db.query('UPDATE lists SET refreshed_at = $2, batch_completed_at = $3 WHERE id = $1', [
    L.L2,
    '2025-01-01T10:00:00Z',
    '2025-03-01T10:00:00Z',
  ]);
  L.L5 = await addList({
    name: 'Youth group',
    description: 'Teens',
    campus: campus['North Campus']!,
    category: null,
    autoRefresh: true,
    frequency: 'weekly',
    createdBy: f.editorId,
    createdAt: '2024-02-01T00:00:00Z',
    total: 7,
  });
  L.L6 = await addList({
    name: '',
    description: 'Zeta description only',
    campus: campus['South Campus']!,
    category: null,
    autoRefresh: false,
    frequency: 'monthly',
    createdBy: f.adminId,
    createdAt: '2024-03-01T00:00:00Z',
    status: 'failed',
    invalid: true,
  });
  L.L7 = await addList({
    name: 'Elders',
    description: 'Church elders',
    campus: null,
    category: category.Care!,
    autoRefresh: true,
    frequency: 'hourly',
    createdBy: f.adminId,
    createdAt: '2023-12-01T00:00:00Z',
    status: 'stale',
    total: 12,
  });
  for (const [key, status] of [
    ['L1', 'active'],
    ['L1', 'active'],
    ['L1', 'paused'],
    ['L5', 'paused'],
    ['L7', 'active'],
  ] as const) {
    await f.db.query("INSERT INTO list_automations (list_id, name, status) VALUES ($1, 'Welcome e-mail', $2)", [
      L[key],
      status,
    ]);
  }
  for (const [key, person] of [
    ['L2', f.adminId],
    ['L5', f.adminId],
    ['L1', f.editorId],
  ] as const)
    await f.db.query('INSERT INTO list_stars (list_id, person_id) VALUES ($1, $2)', [L[key], person]);
  await f.db.query(
    "INSERT INTO list_views (list_id, person_id, viewed_at) VALUES ($1, $2, now() - interval '1 day'), ($3, $2, now() - interval '40 days')",
    [L.L4, f.adminId, L.L6],
  );
  await f.db.query(
    "INSERT INTO list_shares (list_id, person_id, permission) VALUES ($1, $2, 'edit'), ($3, $4, 'view')",
    [L.L3, f.editorId, L.L4, f.memberId],
  );
  await f.db.query(
    "INSERT INTO bulkmail_providers (organization_id, endpoint_url) VALUES ($1, 'http://127.0.0.1:9/bulk')",
    [f.demoId],
  );
  await f.db.query(
    `INSERT INTO bulkmail_sync_statuses (list_id, provider, status, people_count, synced_people_count, attempts, last_attempted_at, last_synced_at)
     VALUES ($1, 'http_json', 'synced', 3, 3, 1, now(), now()), ($2, 'http_json', 'failed', 5, 0, 2, now(), NULL)`,
    [L.L1, L.L2],
  );
});
afterAll(() => f.t.close());

describe('GET /people/v2/lists [filter]', () => {
  const cases: [string, string[], 'admin' | 'editor'][] = [
    ['auto_refresh_enabled', ['L5', 'L7'], 'admin'],
    ['can_manage', ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7'], 'admin'],
    ['can_manage', ['L3', 'L5'], 'editor'],
    ['has_active_automations', ['L1', 'L7'], 'admin'],
    ['bulkmail_connected', ['L1'], 'admin'],
    ['needs_attention', ['L2', 'L6', 'L7'], 'admin'],
    ['recently_viewed', ['L4'], 'admin'],
    ['starred', ['L2', 'L5'], 'admin'],
    ['starred', ['L1'], 'editor'],
    ['unassigned', ['L5', 'L6'], 'admin'],
    ['starred,unassigned', ['L5'], 'admin'],
  ];
  it.each(cases)('applies filter=%s [%s as %s]', async (filter, expected, who) => {
    const res = await get(`/people/v2/lists?filter=${filter}`, f.auth[who]);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(sorted(expected.map((k) => L[k]!)));
    expect(res.body.meta.total_count).toBe(expected.length);
  });

  it('answers 400 Invalid Version for an unknown filter', async () => {
    const res = await get('/people/v2/lists?filter=popular');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      status: '400',
      code: 'unknown_attribute',
      title: 'Invalid Version',
      source: { parameter: 'filter' },
    });
  });

  it('stops counting a list as recently viewed after 30 days', async () => {
    await f.db.query("UPDATE list_views SET viewed_at = now() - interval '31 days' WHERE list_id = $1", [L.L4]);
    expect(ids((await get('/people/v2/lists?filter=recently_viewed')).body)).toEqual([]);
    await f.db.query("UPDATE list_views SET viewed_at = now() - interval '1 day' WHERE list_id = $1", [L.L4]);
  });

  it('counts bulkmail_connected only while the organization provider is configured', async () => {
    await f.db.query('DELETE FROM bulkmail_providers WHERE organization_id = $1', [f.demoId]);
    expect(ids((await get('/people/v2/lists?filter=bulkmail_connected')).body)).toEqual([]);
    await f.db.query(
      "INSERT INTO bulkmail_providers (organization_id, endpoint_url) VALUES ($1, 'http://127.0.0.1:9/bulk')",
      [f.demoId],
    );
  });
});

interface ListModel {
  id: string;
  name: string | null;
  description: string | null;
  auto_refresh_frequency: string;
  batch_completed_at: string | null;
  campus_id: string | null;
  list_category_id: string | null;
  created_at: string;
  refreshed_at: string | null;
  updated_at: string;
  total_people: number;
}

describe('GET /people/v2/lists [order]', () => {
  let model: (ListModel & Record<string, string | number | null>)[];
  beforeAll(async () => {
    const iso = (v: string | Date | null) => (v === null ? null : new Date(String(v)).toISOString());
    const lists = await sqlRows<ListModel>(
      f.db,
      'SELECT id::text, name, description, auto_refresh_frequency, batch_completed_at, campus_id::text, list_category_id::text, created_at, refreshed_at, updated_at, total_people FROM lists WHERE organization_id = $1',
      [f.demoId],
    );
    const names = new Map(
      (
        await sqlRows<{ id: string; name: string }>(
          f.db,
          'SELECT id::text, name FROM campuses UNION ALL SELECT id::text, name FROM list_categories WHERE false',
        )
      ).map((r) => [r.id, r.name]),
    );
    const categoryNames = new Map(
      (await sqlRows<{ id: string; name: string }>(f.db, 'SELECT id::text, name FROM list_categories')).map((r) => [
        r.id,
        r.name,
      ]),
    );
    const automations = await sqlRows<{ list_id: string; status: string }>(
      f.db,
      'SELECT list_id::text, status FROM list_automations',
    );
    const stars = new Set(
      (
        await sqlRows<{ list_id: string }>(f.db, 'SELECT list_id::text FROM list_stars WHERE person_id = $1', [
          f.adminId,
        ])
      ).map((r) => r.list_id),
    );
    model = lists.map((l) => ({
      ...l,
      batch_completed_at: iso(l.batch_completed_at),
      created_at: iso(l.created_at)!,
      refreshed_at: iso(l.refreshed_at),
      updated_at: iso(l.updated_at)!,
      automations_count: automations.filter((a) => a.list_id === l.id).length,
      active_automations_count: automations.filter((a) => a.list_id === l.id && a.status === 'active').length,
      campus_name: l.campus_id ? names.get(l.campus_id)! : null,
      category_name: l.list_category_id ? categoryNames.get(l.list_category_id)! : null,
      name_or_description: l.name ? l.name : l.description,
      starred: stars.has(l.id) ? 1 : 0,
    }));
  });

  const orders: [string, (m: Record<string, string | number | null>) => string | number | null][] = [
    ['active_automations_count', (m) => m.active_automations_count!],
    ['auto_refresh_frequency', (m) => m.auto_refresh_frequency!],
    ['automations_count', (m) => m.automations_count!],
    ['batch_completed_at', (m) => m.batch_completed_at!],
    ['campus_id', (m) => (m.campus_id === null ? null : Number(m.campus_id))],
    ['campuses.name', (m) => m.campus_name!],
    ['created_at', (m) => m.created_at!],
    ['list_categories.name', (m) => m.category_name!],
    ['list_category_id', (m) => (m.list_category_id === null ? null : Number(m.list_category_id))],
    ['name', (m) => m.name!],
    ['name_or_description', (m) => m.name_or_description!],
    ['refreshed_at', (m) => m.refreshed_at!],
    ['starred', (m) => m.starred!],
    ['total_people', (m) => m.total_people!],
    ['updated_at', (m) => m.updated_at!],
  ];
  it.each(orders)('orders by %s both ways', async (order, key) => {
    for (const descending of [false, true]) {
      const res = await get(`/people/v2/lists?order=${descending ? '-' : ''}${order}`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual(
        sortLikeApi(model as never[], key as never, descending).map((m: { id: string }) => m.id),
      );
    }
  });

  it('orders by several values [order=list_categories.name,-total_people]', async () => {
    const res = await get('/people/v2/lists?order=list_categories.name,-total_people');
    const expected = [...model].sort((a, b) => {
      const ca = a.category_name as string | null,
        cb = b.category_name as string | null;
      if (ca !== cb) return ca === null ? 1 : cb === null ? -1 : ca < cb ? -1 : 1;
      if (a.total_people !== b.total_people) return b.total_people - a.total_people;
      return Number(a.id) - Number(b.id);
    });
    expect(ids(res.body)).toEqual(expected.map((m) => m.id));
  });
});

describe('GET /people/v2/lists [where]', () => {
  it('filters by where[id], where[name], where[created_at], where[updated_at], where[batch_completed_at]', async () => {
    const [l1] = await sqlRows<{ batch_completed_at: Date; updated_at: Date }>(
      f.db,
      'SELECT batch_completed_at, updated_at FROM lists WHERE id = $1',
      [L.L1],
    );
    const isoS = (d: Date) => new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const cases: [string, string[]][] = [
      [`where[id]=${L.L3}`, ['L3']],
      [`where[name]=${encodeURIComponent('Women over 40')}`, ['L2']],
      ['where[created_at]=2024-01-01T00:00:00Z', ['L1', 'L2', 'L3', 'L4']],
      ['where[created_at]=2024-02-01T00:00:00Z', ['L5']],
      [`where[updated_at]=${'2023-12-01T00:00:00Z'}`, ['L7']],
      [`where[batch_completed_at]=${isoS(l1!.batch_completed_at)}`, ['L1']],
      ['where[batch_completed_at]=2025-03-01T10:00:00Z', ['L2']],
      ['where[name]=Nobody', []],
    ];
    for (const [query, expected] of cases) {
      const res = await get(`/people/v2/lists?${query}`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual(sorted(expected.map((k) => L[k]!)));
    }
  });

  it('answers 400 for an unknown where attribute and a malformed value', async () => {
    const unknown = await get('/people/v2/lists?where[status]=complete');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      code: 'unknown_attribute',
      title: 'Invalid Version',
      source: { parameter: 'where[status]' },
    });
    const malformed = await get('/people/v2/lists?where[created_at]=yesterday');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]).toMatchObject({
      code: 'invalid_parameter',
      source: { parameter: 'where[created_at]' },
    });
  });
});

describe('GET /people/v2/lists', () => {
  it('renders every attribute, relationship and link of a list', async () => {
    const res = await get(`/people/v2/lists?where[id]=${L.L5}`);
    const self = `${TEST_BASE_URL}/people/v2/lists/${L.L5}`;
    expect(res.body).toEqual({
      data: [
        {
          id: L.L5,
          type: 'List',
          attributes: {
            active_automations_count: 0,
            auto_generated_name: false,
            auto_refresh: true,
            auto_refresh_frequency: 'weekly',
            automations_active: false,
            automations_count: 1,
            batch_completed_at: null,
            created_at: '2024-02-01T00:00:00Z',
            description: 'Teens',
            has_inactive_results: false,
            include_inactive: false,
            invalid: false,
            name: 'Youth group',
            name_or_description: 'Youth group',
            paused_automations_count: 1,
            recently_viewed: false,
            refreshed_at: null,
            return_original_if_none: false,
            returns: 'individuals',
            starred: true,
            status: 'never_run',
            subset: 'all',
            total_people: 7,
            updated_at: '2024-02-01T00:00:00Z',
          },
          relationships: {
            campus: { data: { type: 'Campus', id: campus['North Campus'] }, links: { related: `${self}/campus` } },
            category: { data: null, links: { related: `${self}/category` } },
            created_by: { data: { type: 'Person', id: f.editorId }, links: { related: `${self}/created_by` } },
            updated_by: { data: { type: 'Person', id: f.editorId }, links: { related: `${self}/updated_by` } },
          },
          links: {
            self,
            run: `${self}/run`,
            bulkmail_sync: `${self}/bulkmail_sync`,
            list_results: `${self}/list_results`,
            people: `${self}/people`,
            rules: `${self}/rules`,
            shares: `${self}/shares`,
            star: `${self}/star`,
            bulkmail_sync_status: `${self}/bulkmail_sync_status`,
          },
        },
      ],
      included: [],
      meta: { total_count: 1, count: 1, parent: { id: f.demoId, type: 'Organization' } },
      links: { self: `${TEST_BASE_URL}/people/v2/lists?where[id]=${L.L5}` },
    });
  });

  it('pages with per_page and offset', async () => {
    const res = await get('/people/v2/lists?per_page=3&offset=3');
    expect(ids(res.body)).toEqual(sorted(Object.values(L)).slice(3, 6));
    expect(res.body.meta).toMatchObject({ total_count: 7, count: 3, prev: { offset: 0 }, next: { offset: 6 } });
  });

  it('lets a viewer read, refuses a person without a people role, and shows each organization its own lists [permissions, tenant isolation]', async () => {
    expect(ids((await get('/people/v2/lists', f.auth.viewer)).body)).toEqual(sorted(Object.values(L)));
    const none = await get('/people/v2/lists', f.auth.none);
    expect(none.status).toBe(403);
    expect(none.body).toEqual(FORBIDDEN_VIEWER);
    const other = await get('/people/v2/lists', f.auth.other);
    const expected = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM lists WHERE organization_id = $1 ORDER BY lists.id',
      [f.otherId],
    );
    expect(ids(other.body)).toEqual(expected.map((r) => r.id));
  });
});

describe('GET /people/v2/lists [include]', () => {
  const includedKeys = (body: { included?: { type: string; id: string }[] }) =>
    (body.included ?? []).map((r) => `${r.type}:${r.id}`);
  it.each([
    ['campus', () => [`Campus:${campus['Main Campus']}`]],
    ['category', () => [`ListCategory:${category.Outreach}`]],
    ['created_by', () => [`Person:${f.adminId}`]],
    ['updated_by', () => [`Person:${f.adminId}`]],
    [
      'bulkmail_sync_status',
      async () => [
        `BulkmailSyncStatus:${await one('SELECT id::text FROM bulkmail_sync_statuses WHERE list_id = $1', [L.L1])}`,
      ],
    ],
    [
      'rules',
      async () =>
        (
          await sqlRows<{ id: string }>(f.db, 'SELECT id::text FROM list_rules WHERE list_id = $1 ORDER BY position', [
            L.L1,
          ])
        ).map((r) => `Rule:${r.id}`),
    ],
    ['shares', () => [] as string[]],
    [
      'people',
      async () =>
        (
          await sqlRows<{ id: string }>(
            f.db,
            'SELECT person_id::text AS id FROM list_results WHERE list_id = $1 ORDER BY list_results.person_id',
            [L.L1],
          )
        ).map((r) => `Person:${r.id}`),
    ],
  ] as const)('includes %s of a list', async (include, expected) => {
    const res = await get(`/people/v2/lists/${L.L1}?include=${include}`, f.auth.editor);
    expect(res.status).toBe(200);
    const keys = await expected();
    if (include === 'people') expect(keys.length).toBeGreaterThan(0);
    expect(includedKeys(res.body)).toEqual(keys);
  });

  it('includes shares and the related types of several lists, with fields[Type] [include=shares,campus]', async () => {
    const res = await get(
      `/people/v2/lists?filter=can_manage&include=shares,campus&fields[ListShare]=permission&fields[Campus]=name`,
      f.auth.editor,
    );
    expect(res.status).toBe(200);
    const share = await one('SELECT id::text FROM list_shares WHERE list_id = $1', [L.L3]);
    expect(res.body.included).toEqual([
      {
        id: share,
        type: 'ListShare',
        attributes: { permission: 'edit' },
        relationships: {},
        links: { self: `${TEST_BASE_URL}/people/v2/lists/${L.L3}/shares/${share}` },
      },
      {
        id: campus['North Campus'],
        type: 'Campus',
        attributes: { name: 'North Campus' },
        links: {
          self: `${TEST_BASE_URL}/people/v2/campuses/${campus['North Campus']}`,
          lists: `${TEST_BASE_URL}/people/v2/campuses/${campus['North Campus']}/lists`,
        },
      },
    ]);
  });
});

describe('GET /people/v2/lists/{id}', () => {
  it('returns the list, records the view and marks it recently viewed', async () => {
    await f.db.query('DELETE FROM list_views WHERE person_id = $1', [f.memberId]);
    const res = await get(`/people/v2/lists/${L.L3}`, f.auth.viewer);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: L.L3,
      type: 'List',
      attributes: { name: 'Prayer requests', recently_viewed: true },
    });
    expect(res.body.meta).toEqual({ parent: { id: f.demoId, type: 'Organization' } });
    expect(await sqlRows(f.db, 'SELECT list_id::text FROM list_views WHERE person_id = $1', [f.memberId])).toEqual([
      { list_id: L.L3 },
    ]);
  });

  it('answers 404 for another organization list and records nothing [tenant isolation]', async () => {
    const res = await get(`/people/v2/lists/${otherList}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect(await sqlRows(f.db, 'SELECT 1 FROM list_views WHERE list_id = $1', [otherList])).toEqual([]);
  });
});

describe('GET /people/v2/campuses/{campus_id}/lists', () => {
  it('returns the lists of the campus with a Campus parent', async () => {
    const res = await get(`/people/v2/campuses/${campus['North Campus']}/lists`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([L.L5]);
    expect(res.body.meta.parent).toEqual({ id: campus['North Campus'], type: 'Campus' });
    expect(ids((await get(`/people/v2/campuses/${campus['Main Campus']}/lists?order=-name`)).body)).toEqual([L.L1]);
  });

  it('answers 404 for a campus of another organization [tenant isolation]', async () => {
    const otherCampus = await one('SELECT id::text FROM campuses WHERE organization_id = $1 LIMIT 1', [f.otherId]);
    expect((await get(`/people/v2/campuses/${otherCampus}/lists`)).status).toBe(404);
  });
});

describe('GET /people/v2/list_categories/{list_category_id}/lists', () => {
  it('returns the lists of the category with a ListCategory parent', async () => {
    const res = await get(`/people/v2/list_categories/${category.Care}/lists?order=name`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([L.L7, L.L3, L.L2]);
    expect(res.body.meta.parent).toEqual({ id: category.Care, type: 'ListCategory' });
  });

  it('answers 404 for a category of another organization [tenant isolation]', async () => {
    const otherCategory = await one('SELECT id::text FROM list_categories WHERE organization_id = $1 LIMIT 1', [
      f.otherId,
    ]);
    expect((await get(`/people/v2/list_categories/${otherCategory}/lists`)).status).toBe(404);
  });
});

describe('GET /people/v2/lists/{list_id}/<association>', () => {
  it('returns the campus and category [campus, category]', async () => {
    const c = await get(`/people/v2/lists/${L.L1}/campus`);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({
      id: campus['Main Campus'],
      type: 'Campus',
      attributes: { name: 'Main Campus' },
    });
    expect(c.body.meta).toEqual({ parent: { id: L.L1, type: 'List' } });
    const g = await get(`/people/v2/lists/${L.L1}/category`);
    expect(g.body.data).toMatchObject({
      id: category.Outreach,
      type: 'ListCategory',
      attributes: { name: 'Outreach' },
    });
    expect((await get(`/people/v2/lists/${L.L7}/campus`)).status).toBe(404);
    expect((await get(`/people/v2/lists/${L.L5}/category`)).status).toBe(404);
  });

  it('returns the creator and last editor [created_by, updated_by]', async () => {
    expect((await get(`/people/v2/lists/${L.L5}/created_by`)).body.data).toMatchObject({
      id: f.editorId,
      type: 'Person',
      attributes: { first_name: 'Eden', last_name: 'Editor' },
    });
    expect((await get(`/people/v2/lists/${L.L1}/updated_by`)).body.data).toMatchObject({
      id: f.adminId,
      type: 'Person',
    });
  });

  it('returns the results and the people found [list_results, people]', async () => {
    const expected = await sqlRows<{ id: string; person_id: string }>(
      f.db,
      'SELECT id::text, person_id::text FROM list_results WHERE list_id = $1 ORDER BY list_results.person_id',
      [L.L2],
    );
    const results = await get(`/people/v2/lists/${L.L2}/list_results?per_page=100`);
    expect(results.status).toBe(200);
    expect(results.body.meta).toMatchObject({ total_count: expected.length, parent: { id: L.L2, type: 'List' } });
    expect(
      results.body.data.map(
        (r: { relationships: { person: { data: { id: string } } } }) => r.relationships.person.data.id,
      ),
    ).toEqual(expected.slice(0, 100).map((r) => r.person_id));
    const first = expected[0]!;
    expect((await get(`/people/v2/lists/${L.L2}/list_results/${first.id}`)).body.data).toMatchObject({
      id: first.id,
      type: 'ListResult',
      relationships: {
        person: { data: { type: 'Person', id: first.person_id } },
        list: { data: { type: 'List', id: L.L2 } },
      },
    });
    const people = await get(`/people/v2/lists/${L.L2}/people?per_page=100`);
    expect(people.body.meta.total_count).toBe(expected.length);
    expect(ids(people.body)).toEqual(expected.slice(0, 100).map((r) => r.person_id));
    expect(people.body.data[0].type).toBe('Person');
  });

  it('returns the rules in position order [rules]', async () => {
    const res = await get(`/people/v2/lists/${L.L2}/rules`);
    expect(res.status).toBe(200);
    expect(
      res.body.data.map((r: { attributes: Record<string, unknown> }) => [
        r.attributes.attribute,
        r.attributes.operator,
        r.attributes.value,
        r.attributes.position,
      ]),
    ).toEqual([
      ['gender', 'is', 'F', 0],
      ['age', 'greater_than_or_equal', '40', 1],
    ]);
    const rule = res.body.data[0];
    expect((await get(`/people/v2/lists/${L.L2}/rules/${rule.id}`)).body.data).toEqual(rule);
  });

  it('returns the shares [shares]', async () => {
    const res = await get(`/people/v2/lists/${L.L4}/shares`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      type: 'ListShare',
      attributes: { permission: 'view' },
      relationships: { person: { data: { type: 'Person', id: f.memberId } } },
    });
    const share = res.body.data[0];
    expect((await get(`/people/v2/lists/${L.L4}/shares/${share.id}`)).body.data).toEqual(share);
    expect((await get(`/people/v2/lists/${L.L3}/shares/${share.id}`)).status).toBe(404);
  });

  it('returns the requester star, or 404 when the requester has not starred the list [star]', async () => {
    const res = await get(`/people/v2/lists/${L.L2}/star`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'ListStar',
      relationships: { person: { data: { type: 'Person', id: f.adminId } } },
      links: { self: `${TEST_BASE_URL}/people/v2/lists/${L.L2}/star` },
    });
    expect((await get(`/people/v2/lists/${L.L2}/star`, f.auth.editor)).status).toBe(404);
  });

  it('returns the bulk-mail sync status [bulkmail_sync_status]', async () => {
    const res = await get(`/people/v2/lists/${L.L2}/bulkmail_sync_status`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'BulkmailSyncStatus',
      attributes: {
        provider: 'http_json',
        status: 'failed',
        people_count: 5,
        synced_people_count: 0,
        attempts: 2,
        last_synced_at: null,
      },
    });
    expect((await get(`/people/v2/lists/${L.L3}/bulkmail_sync_status`)).status).toBe(404);
  });

  it.each([
    'campus',
    'category',
    'created_by',
    'updated_by',
    'list_results',
    'bulkmail_sync_status',
    'people',
    'rules',
    'shares',
    'star',
  ])('answers 404 for another organization list [%s, tenant isolation]', async (association) => {
    const res = await get(`/people/v2/lists/${otherList}/${association}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe('GET /people/v2/campuses|list_categories|note_categories/{id}', () => {
  it('returns the record of the organization and 404 for another organization one', async () => {
    expect((await get(`/people/v2/campuses/${campus['South Campus']}`)).body.data).toMatchObject({
      type: 'Campus',
      attributes: { name: 'South Campus' },
    });
    expect((await get(`/people/v2/list_categories/${category.Volunteers}`)).body.data).toMatchObject({
      type: 'ListCategory',
      attributes: { name: 'Volunteers' },
    });
    const noteCategory = await one(
      "SELECT id::text FROM note_categories WHERE organization_id = $1 AND name = 'General'",
      [f.demoId],
    );
    expect((await get(`/people/v2/note_categories/${noteCategory}`)).body.data).toMatchObject({
      type: 'NoteCategory',
      attributes: { name: 'General' },
    });
    const otherCampus = await one('SELECT id::text FROM campuses WHERE organization_id = $1 LIMIT 1', [f.otherId]);
    expect((await get(`/people/v2/campuses/${otherCampus}`)).status).toBe(404);
  });
});
