/**
 * List writes, allowed to people editors (and above) who can manage the list — people managers, its
 * creator, or a person it is shared with for editing: `PATCH /people/v2/lists/{id}`,
 * `POST /lists/{list_id}/run` and `POST /lists/{list_id}/bulkmail_sync` — one named handler per route, listed in
 * order by `listWriteRoutes`.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type { Database } from '../db/database.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts';
import { parseResourcePayload, type PayloadValue } from '../jsonapi/payload.ts';
import type { Row } from '../jsonapi/resource.ts';
import { pathId, singleRoute } from '../jsonapi/routes.ts';
import { BULKMAIL_SYNC_STATUS_SELECT, bulkmailSyncStatusResource } from './bulkmail-sync-status-resource.ts';
import { syncListToBulkmail, type BulkmailProviderFactory } from './bulkmail-sync.ts';
import { LIST_RELATED, listIncludes } from './list-includes.ts';
import { loadList } from './list-rows.ts';
import { listPayload, listResource } from './list-resource.ts';
import { requireOrganizationRecord } from './org-records.ts';
import { organizationParent, scopeOf, type RequestScope } from './request-scope.ts';
import { runList } from './run-list.ts';

/** Clock and bulk-mail adapters of the List write routes. */
export interface ListWriteOptions {
  /** The clock of runs and syncs. */
  now: () => Date;
  providers?: BulkmailProviderFactory;
}

/** Loads the list (404) and refuses (403) a person who cannot manage it. */
async function requireManageableList(db: Database, scope: RequestScope, id: string): Promise<Row> {
  const list = await loadList(db, scope, id);
  if (!list) throw new NotFoundError();
  if (scope.isManager || list.created_by_id === scope.personId) return list;
  const { rows } = await db.query(
    "SELECT 1 FROM list_shares WHERE list_id = $1 AND person_id = $2 AND permission = 'edit'",
    [list.id, scope.personId],
  );
  if (rows.length === 0)
    throw new ForbiddenError(
      'Managing this list needs the people manager role, being its creator, or an edit share of it',
    );
  return list;
}

/** A readable name from the rules, for lists whose name is cleared (auto_generated_name). */
async function generatedName(db: Database, listId: string, subset: string): Promise<string> {
  const { rows } = await db.query<{ attribute: string; operator: string; value: string }>(
    'SELECT attribute, operator, value FROM list_rules WHERE list_id = $1 ORDER BY position, id',
    [listId],
  );
  if (rows.length === 0) return 'Untitled list';
  return rows
    .map((r) => `${r.attribute} ${r.operator.replace(/_/g, ' ')}${r.value ? ` ${r.value}` : ''}`)
    .join(subset === 'any' ? ' or ' : ' and ');
}

const CRITERIA = ['include_inactive', 'return_original_if_none', 'returns', 'subset'] as const;
const COLUMNS = [
  'description',
  'auto_refresh',
  'auto_refresh_frequency',
  ...CRITERIA,
  'campus_id',
  'list_category_id',
] as const;

/** `PATCH /lists/{id}`, `POST /lists/{list_id}/run`, `POST /lists/{list_id}/bulkmail_sync`, in the order they are matched. */
export function listWriteRoutes(db: Database, options: ListWriteOptions): Router {
  const router = Router();
  router.patch('/lists/:id', updateList(db));
  router.post('/lists/:list_id/run', runListNow(db, options));
  router.post('/lists/:list_id/bulkmail_sync', syncListNow(db, options));
  return router;
}

/** The list as answered after a write, with what the query includes. */
async function answerList(db: Database, req: Request, scope: RequestScope, id: string, include: string[]) {
  const row = await loadList(db, scope, id);
  return {
    row,
    parent: organizationParent(req),
    included: row ? await listIncludes(db, scope.organizationId, [row], include) : [],
  };
}

/** The SET clauses (and their parameters after $1 organization, $2 list) of a list update. */
async function listChanges(db: Database, scope: RequestScope, list: Row, values: Record<string, PayloadValue>) {
  const sets: string[] = [];
  const params: unknown[] = [scope.organizationId, list.id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  for (const column of COLUMNS) if (column in values) set(column, values[column]);
  if ('name' in values) {
    const cleared = values.name === null || String(values.name).trim() === '';
    set('name', cleared ? await generatedName(db, String(list.id), String(values.subset ?? list.subset)) : values.name);
    set('auto_generated_name', cleared);
  }
  // Changed criteria make the current results out of date until the next run.
  if (list.status === 'complete' && CRITERIA.some((c) => c in values && values[c] !== list[c]))
    sets.push("status = 'stale'");
  if (sets.length) {
    set('updated_by_id', scope.personId);
    sets.push('updated_at = now()');
  }
  return { sets, params };
}

/** `PATCH /lists/{id}`: its attributes, its campus and category (the organization's), the requester's star. */
function updateList(db: Database): RequestHandler {
  return singleRoute(
    listResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const list = await requireManageableList(db, scope, pathId(req, 'id'));
      const values = parseResourcePayload(req.body, listPayload);
      if (typeof values.campus_id === 'string')
        await requireOrganizationRecord(db, 'campuses', scope.organizationId, values.campus_id, 'campus');
      if (typeof values.list_category_id === 'string')
        await requireOrganizationRecord(
          db,
          'list_categories',
          scope.organizationId,
          values.list_category_id,
          'category',
        );
      const { sets, params } = await listChanges(db, scope, list, values);
      if (sets.length)
        await db.query(`UPDATE lists SET ${sets.join(', ')} WHERE organization_id = $1 AND id = $2`, params);
      if (values.starred === true)
        await db.query('INSERT INTO list_stars (list_id, person_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          list.id,
          scope.personId,
        ]);
      if (values.starred === false)
        await db.query('DELETE FROM list_stars WHERE list_id = $1 AND person_id = $2', [list.id, scope.personId]);
      return answerList(db, req, scope, String(list.id), query.include);
    },
    { related: LIST_RELATED },
  );
}

/** `POST /lists/{list_id}/run`: runs the rules now (422 naming the rule that cannot run). */
function runListNow(db: Database, options: ListWriteOptions): RequestHandler {
  return singleRoute(
    listResource,
    async (req, query) => {
      const scope = scopeOf(req);
      const list = await requireManageableList(db, scope, pathId(req, 'list_id'));
      const outcome = await runList(db, {
        organizationId: scope.organizationId,
        listId: String(list.id),
        now: options.now(),
      });
      if (!outcome.ok)
        throw new ValidationError('List', [
          { parameter: `rules[${outcome.error.position}].${outcome.error.field}`, detail: outcome.error.message },
        ]);
      return answerList(db, req, scope, String(list.id), query.include);
    },
    { related: LIST_RELATED },
  );
}

/** `POST /lists/{list_id}/bulkmail_sync`: syncs the list to its bulk-mail provider now, answers the sync status. */
function syncListNow(db: Database, options: ListWriteOptions): RequestHandler {
  return singleRoute(bulkmailSyncStatusResource, async (req) => {
    const scope = scopeOf(req);
    const list = await requireManageableList(db, scope, pathId(req, 'list_id'));
    await syncListToBulkmail(db, {
      organizationId: scope.organizationId,
      listId: String(list.id),
      now: options.now(),
      ...(options.providers ? { providers: options.providers } : {}),
    });
    const { rows } = await db.query<Row>(
      `SELECT ${BULKMAIL_SYNC_STATUS_SELECT} FROM bulkmail_sync_statuses b WHERE b.list_id = $1`,
      [list.id],
    );
    return { row: rows[0], parent: { id: String(list.id), type: 'List' } };
  });
}
