/**
 * The List resource (type List). Rows come from `listRowsSql`, a derived table `l` holding the stored
 * columns plus the computed ones (automation counts, the requester's star and recent view, campus and
 * category names), so order values, `where[]` and named filters are plain column references.
 */
import type { PayloadShape } from '../jsonapi/payload.ts';
import type { ResourceDefinition } from '../jsonapi/resource.ts';
import { holdsProductRole } from '../directory/index.ts';

/** Allowed values of the List string attributes (see docs/people-api.md). */
export const LIST_VALUES = {
  auto_refresh_frequency: ['hourly', 'daily', 'weekly', 'monthly'],
  returns: ['individuals', 'adults', 'children'],
  subset: ['all', 'any'],
  status: ['never_run', 'complete', 'stale', 'failed'],
} as const;

/** How long a list counts as recently viewed by a person after they opened it. */
export const RECENTLY_VIEWED_DAYS = 30;

const listLink = (base: string, id: unknown) => `${base}/people/v2/lists/${String(id)}`;

/**
 * The lists of organization `$1` as seen by person `$2`, as a derived table to alias `l`.
 * Ids stay bigint here (ordering); the SELECT list renders them as text.
 */
export const LIST_ROWS_SQL = `(
  SELECT l.*,
    COALESCE(NULLIF(l.name, ''), l.description) AS name_or_description,
    (SELECT count(*)::int FROM list_automations a WHERE a.list_id = l.id) AS automations_count,
    (SELECT count(*)::int FROM list_automations a WHERE a.list_id = l.id AND a.status = 'active') AS active_automations_count,
    (SELECT count(*)::int FROM list_automations a WHERE a.list_id = l.id AND a.status = 'paused') AS paused_automations_count,
    EXISTS (SELECT 1 FROM list_stars s WHERE s.list_id = l.id AND s.person_id = $2) AS starred,
    EXISTS (SELECT 1 FROM list_views v WHERE v.list_id = l.id AND v.person_id = $2 AND v.viewed_at > now() - interval '${RECENTLY_VIEWED_DAYS} days') AS recently_viewed,
    c.name AS campus_name,
    lc.name AS list_category_name
  FROM lists l
  LEFT JOIN campuses c ON c.id = l.campus_id
  LEFT JOIN list_categories lc ON lc.id = l.list_category_id
  WHERE l.organization_id = $1
) l`;

/** Columns of a List row read from `LIST_ROWS_SQL`. */
export const LIST_SELECT =
  'l.id::text AS id, l.organization_id::text AS organization_id, l.campus_id::text AS campus_id, l.list_category_id::text AS list_category_id, ' +
  'l.created_by_id::text AS created_by_id, l.updated_by_id::text AS updated_by_id, l.name, l.description, l.name_or_description, ' +
  'l.auto_generated_name, l.auto_refresh, l.auto_refresh_frequency, l.include_inactive, l.return_original_if_none, l.returns, l.subset, ' +
  'l.status, l.invalid, l.total_people, l.has_inactive_results, l.refreshed_at, l.batch_completed_at, l.created_at, l.updated_at, ' +
  'l.automations_count, l.active_automations_count, l.paused_automations_count, l.starred, l.recently_viewed';

/** Definition of List: attributes, relationships, includes, order values, where[] and named filters. */
export const listResource: ResourceDefinition = {
  type: 'List',
  attributes: {
    active_automations_count: { type: 'integer' },
    auto_generated_name: { type: 'boolean' },
    auto_refresh: { type: 'boolean' },
    auto_refresh_frequency: { type: 'string', enum: LIST_VALUES.auto_refresh_frequency },
    automations_active: { type: 'boolean', read: (row) => Number(row.active_automations_count) > 0 },
    automations_count: { type: 'integer' },
    batch_completed_at: { type: 'date_time', nullable: true },
    created_at: { type: 'date_time' },
    description: { type: 'string', nullable: true },
    has_inactive_results: { type: 'boolean' },
    include_inactive: { type: 'boolean' },
    invalid: { type: 'boolean' },
    name: { type: 'string' },
    name_or_description: { type: 'string' },
    paused_automations_count: { type: 'integer' },
    recently_viewed: { type: 'boolean' },
    refreshed_at: { type: 'date_time', nullable: true },
    return_original_if_none: { type: 'boolean' },
    returns: { type: 'string', enum: LIST_VALUES.returns },
    starred: { type: 'boolean' },
    status: { type: 'string', enum: LIST_VALUES.status },
    subset: { type: 'string', enum: LIST_VALUES.subset },
    total_people: { type: 'integer' },
    updated_at: { type: 'date_time' },
  },
  fields: [
    'active_automations_count',
    'auto_generated_name',
    'auto_refresh',
    'auto_refresh_frequency',
    'automations_active',
    'automations_count',
    'batch_completed_at',
    'created_at',
    'description',
    'has_inactive_results',
    'include_inactive',
    'invalid',
    'name',
    'name_or_description',
    'paused_automations_count',
    'recently_viewed',
    'refreshed_at',
    'return_original_if_none',
    'returns',
    'starred',
    'status',
    'subset',
    'total_people',
    'updated_at',
    'campus',
    'category',
    'created_by',
    'updated_by',
  ],
  relationships: {
    campus: {
      type: 'Campus',
      id: (row) => row.campus_id as string | null,
      related: (row, base) => `${listLink(base, row.id)}/campus`,
    },
    category: {
      type: 'ListCategory',
      id: (row) => row.list_category_id as string | null,
      related: (row, base) => `${listLink(base, row.id)}/category`,
    },
    created_by: {
      type: 'Person',
      id: (row) => row.created_by_id as string | null,
      related: (row, base) => `${listLink(base, row.id)}/created_by`,
    },
    updated_by: {
      type: 'Person',
      id: (row) => row.updated_by_id as string | null,
      related: (row, base) => `${listLink(base, row.id)}/updated_by`,
    },
  },
  links: (row, base) => {
    const self = listLink(base, row.id);
    return {
      self,
      run: `${self}/run`,
      bulkmail_sync: `${self}/bulkmail_sync`,
      list_results: `${self}/list_results`,
      people: `${self}/people`,
      rules: `${self}/rules`,
      shares: `${self}/shares`,
      star: `${self}/star`,
      bulkmail_sync_status: `${self}/bulkmail_sync_status`,
    };
  },
  includes: ['campus', 'category', 'created_by', 'bulkmail_sync_status', 'people', 'rules', 'shares', 'updated_by'],
  order: {
    active_automations_count: 'l.active_automations_count',
    auto_refresh_frequency: 'l.auto_refresh_frequency',
    automations_count: 'l.automations_count',
    batch_completed_at: 'l.batch_completed_at',
    campus_id: 'l.campus_id',
    'campuses.name': 'l.campus_name',
    created_at: 'l.created_at',
    'list_categories.name': 'l.list_category_name',
    list_category_id: 'l.list_category_id',
    name: 'l.name',
    name_or_description: 'l.name_or_description',
    refreshed_at: 'l.refreshed_at',
    starred: 'l.starred',
    total_people: 'l.total_people',
    updated_at: 'l.updated_at',
  },
  where: {
    batch_completed_at: { type: 'date_time', column: 'l.batch_completed_at' },
    created_at: { type: 'date_time', column: 'l.created_at' },
    id: { type: 'primary_key', column: 'l.id' },
    name: { type: 'string', column: 'l.name' },
    updated_at: { type: 'date_time', column: 'l.updated_at' },
  },
  filters: {
    auto_refresh_enabled: () => 'l.auto_refresh',
    can_manage: (ctx) => {
      const person = ctx.param(ctx.personId);
      const manager = holdsProductRole(person, "'people'", "'manager'");
      return `${manager} OR l.created_by_id = ${person} OR EXISTS (SELECT 1 FROM list_shares sh WHERE sh.list_id = l.id AND sh.person_id = ${person} AND sh.permission = 'edit')`;
    },
    has_active_automations: () => 'l.active_automations_count > 0',
    bulkmail_connected: () =>
      'EXISTS (SELECT 1 FROM bulkmail_providers bp WHERE bp.organization_id = l.organization_id) AND EXISTS (SELECT 1 FROM bulkmail_sync_statuses b WHERE b.list_id = l.id AND b.last_synced_at IS NOT NULL)',
    needs_attention: () =>
      "l.invalid OR l.status IN ('stale', 'failed') OR EXISTS (SELECT 1 FROM bulkmail_sync_statuses b WHERE b.list_id = l.id AND b.status = 'failed')",
    recently_viewed: () => 'l.recently_viewed',
    starred: () => 'l.starred',
    unassigned: () => 'l.list_category_id IS NULL',
  },
};

/** What `PATCH /people/v2/lists/{id}` accepts. */
export const listPayload: PayloadShape = {
  type: 'List',
  assignable: {
    name: { type: 'string', nullable: true },
    description: { type: 'string', nullable: true },
    auto_refresh: { type: 'boolean' },
    auto_refresh_frequency: { type: 'string', enum: LIST_VALUES.auto_refresh_frequency },
    include_inactive: { type: 'boolean' },
    return_original_if_none: { type: 'boolean' },
    returns: { type: 'string', enum: LIST_VALUES.returns },
    subset: { type: 'string', enum: LIST_VALUES.subset },
    starred: { type: 'boolean' },
  },
  readOnly: Object.keys(listResource.attributes)
    .filter(
      (a) =>
        ![
          'name',
          'description',
          'auto_refresh',
          'auto_refresh_frequency',
          'include_inactive',
          'return_original_if_none',
          'returns',
          'subset',
          'starred',
        ].includes(a),
    )
    .concat(['id', 'created_by', 'updated_by']),
  relationships: {
    campus: { type: 'Campus', attribute: 'campus_id', nullable: true },
    category: { type: 'ListCategory', attribute: 'list_category_id', nullable: true },
  },
};
