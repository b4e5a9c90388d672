/**
 * Bulk-mail synchronisation of a list: the organization's configured provider gets the list's current
 * results. Every attempt is recorded in `bulkmail_sync_statuses` before the provider is called and its
 * outcome after, so a failure is never silent; the list's results are only read, so nothing is lost,
 * and syncing again (a retry) sends the whole list again.
 */
import type { Database, Queryable } from '../db/database.ts';
import { HostError } from '../errors.ts';
import { isHttpEndpoint, type BulkmailPerson, type BulkmailProvider } from './bulkmail-provider.ts';
import { createHttpJsonBulkmailProvider } from './http-json-bulkmail-provider.ts';
import { joinPeople } from '../directory/index.ts';

/** 422 bulkmail_not_configured: the organization has no (usable) bulk-mail provider. */
export class BulkmailNotConfiguredError extends HostError {
  constructor(
    detail = 'No bulk-mail provider is configured for this organization; an administrator must configure one first',
  ) {
    super({ status: 422, code: 'bulkmail_not_configured', title: 'Bulk Mail Not Configured', detail });
  }
}

/** A stored provider configuration (`bulkmail_providers` row). */
export interface BulkmailProviderConfig {
  provider: 'http_json';
  endpointUrl: string;
}

/** Builds the adapter for a stored configuration. */
export type BulkmailProviderFactory = (config: BulkmailProviderConfig) => BulkmailProvider;

/** The factory used unless another is injected: every configuration is an http_json endpoint. */
export const defaultBulkmailProviderFactory: BulkmailProviderFactory = (config) =>
  createHttpJsonBulkmailProvider({ endpointUrl: config.endpointUrl });

/** Sets (or replaces) the organization's provider; refuses endpoints that are not http(s). */
export async function configureBulkmailProvider(
  db: Queryable,
  organizationId: string,
  config: BulkmailProviderConfig,
): Promise<void> {
  if (!isHttpEndpoint(config.endpointUrl)) throw new Error('the bulk-mail endpoint must be an http(s) URL');
  await db.query(
    `INSERT INTO bulkmail_providers (organization_id, provider, endpoint_url) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id) DO UPDATE SET provider = EXCLUDED.provider, endpoint_url = EXCLUDED.endpoint_url, updated_at = now()`,
    [organizationId, config.provider, config.endpointUrl],
  );
}

/** One sync: which list, at what time, with which adapters. */
export interface SyncListInput {
  organizationId: string;
  listId: string;
  now: Date;
  providers?: BulkmailProviderFactory;
}

/** Syncs the list and returns whether the provider accepted it; the status row holds the details. */
export async function syncListToBulkmail(db: Database, input: SyncListInput): Promise<{ ok: boolean }> {
  const { organizationId, listId, now } = input;
  const { rows: configs } = await db.query<{ provider: 'http_json'; endpoint_url: string }>(
    'SELECT provider, endpoint_url FROM bulkmail_providers WHERE organization_id = $1',
    [organizationId],
  );
  const config = configs[0];
  if (!config) throw new BulkmailNotConfiguredError();
  if (!isHttpEndpoint(config.endpoint_url))
    throw new BulkmailNotConfiguredError('The configured bulk-mail endpoint is not an http(s) URL');
  const provider = (input.providers ?? defaultBulkmailProviderFactory)({
    provider: config.provider,
    endpointUrl: config.endpoint_url,
  });

  const { rows: lists } = await db.query<{ name: string | null }>(
    'SELECT name FROM lists WHERE organization_id = $1 AND id = $2',
    [organizationId, listId],
  );
  const { rows: people } = await db.query<BulkmailPerson>(
    `SELECT p.id::text AS id, p.first_name, p.last_name, p.email FROM list_results r ${joinPeople('p', 'r.person_id')}
     WHERE r.list_id = $1 ORDER BY p.id`,
    [listId],
  );
  await db.query(
    `INSERT INTO bulkmail_sync_statuses (list_id, provider, status, people_count, attempts, last_attempted_at, created_at, updated_at)
     VALUES ($1, $2, 'syncing', $3, 1, $4, $4, $4)
     ON CONFLICT (list_id) DO UPDATE SET provider = EXCLUDED.provider, status = 'syncing', people_count = EXCLUDED.people_count,
       attempts = bulkmail_sync_statuses.attempts + 1, last_attempted_at = EXCLUDED.last_attempted_at, updated_at = EXCLUDED.updated_at`,
    [listId, provider.name, people.length, now],
  );
  const outcome = await provider.sync({ organizationId, list: { id: listId, name: lists[0]?.name ?? null }, people });
  if (outcome.ok) {
    await db.query(
      `UPDATE bulkmail_sync_statuses SET status = 'synced', synced_people_count = $2, failed_attempts = 0, last_error = NULL, last_synced_at = $3, updated_at = $3 WHERE list_id = $1`,
      [listId, outcome.syncedCount, now],
    );
  } else {
    await db.query(
      `UPDATE bulkmail_sync_statuses SET status = 'failed', failed_attempts = failed_attempts + 1, last_error = $2, updated_at = $3 WHERE list_id = $1`,
      [listId, outcome.error, now],
    );
  }
  return { ok: outcome.ok };
}
