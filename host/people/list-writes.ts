/**
 * List writes, allowed to people editors (and above) who can manage the list — people managers, its
 * creator, or a person it is shared with for editing: `PATCH /people/v2/lists/{id}`,
 * `POST /lists/{list_id}/run` and `POST /lists/{list_id}/bulkmail_sync`.
 */
import { Router } from 'express';
import type { Database } from '../db/database.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts';
import { parseResourcePayload } from '../jsonapi/payload.ts';
import type { Row } from '../jsonapi/resource.ts';
import { pathId, singleRoute } from '../jsonapi/routes.ts';
import { BULKMAIL_SYNC_STATUS_SELECT, bulkmailSyncStatusResource } from './bulkmail-sync-status-resource.ts';
import { syncListToBulkmail, type BulkmailProviderFactory } from './bulkmail-sync.ts';
import { LIST_RELATED, listIncludes } from './list-includes.ts';
import { loadList } from './list-reads.ts';
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

/** `PATCH /lists/{id}`, `POST /lists/{list_id}/run`, `POST /lists/{list_id}/bulkmail_sync`. */
export function listWriteRoutes(db: Database, options: ListWriteOptions): Router {
  const router = Router();

  router.patch(
    '/lists/:id',
    singleRoute(
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

        const sets: string[] = [];
        const params: unknown[] = [scope.organizationId, list.id];
        const set = (column: string, value: unknown) => {
          params.push(value);
          sets.push(`${column} = $${params.length}`);
        };
        for (const column of COLUMNS) if (column in values) set(column, values[column]);
        if ('name' in values) {
          const cleared = values.name === null || String(values.name).trim() === '';
          set(
            'name',
            cleared ? await generatedName(db, String(list.id), String(values.subset ?? list.subset)) : values.name,
          );
          set('auto_generated_name', cleared);
        }
        // Changed criteria make the current results out of date until the next run.
        if (list.status === 'complete' && CRITERIA.some((c) => c in values && values[c] !== list[c]))
          sets.push("status = 'stale'");
        if (sets.length) {
          set('updated_by_id', scope.personId);
          sets.push('updated_at = now()');
          await db.query(`UPDATE lists SET ${sets.join(', ')} WHERE organization_id = $1 AND id = $2`, params);
        }
        if (values.starred === true)
          await db.query('INSERT INTO list_stars (list_id, person_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
            list.id,
            scope.personId,
          ]);
        if (values.starred === false)
          await db.query('DELETE FROM list_stars WHERE list_id = $1 AND person_id = $2', [list.id, scope.personId]);
        const row = await loadList(db, scope, String(list.id));
        return {
          row,
          parent: organizationParent(req),
          included: row ? await listIncludes(db, scope.organizationId, [row], query.include) : [],
        };
      },
      { related: LIST_RELATED, payload: listPayload },
    ),
  );

  router.post(
    '/lists/:list_id/run',
    singleRoute(
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
        const row = await loadList(db, scope, String(list.id));
        return {
          row,
          parent: organizationParent(req),
          included: row ? await listIncludes(db, scope.organizationId, [row], query.include) : [],
        };
      },
      { related: LIST_RELATED },
    ),
  );

  router.post(
    '/lists/:list_id/bulkmail_sync',
    singleRoute(bulkmailSyncStatusResource, async (req) => {
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
    }),
  );
  return router;
}
