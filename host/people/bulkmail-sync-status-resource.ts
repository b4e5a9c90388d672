/** The BulkmailSyncStatus resource: the outcome of a list's last bulk-mail synchronisation. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of BulkmailSyncStatus (one per list, created by the first sync). */
export const bulkmailSyncStatusResource: ResourceDefinition = {
  type: 'BulkmailSyncStatus',
  attributes: {
    provider: { type: 'string' },
    status: { type: 'string' },
    people_count: { type: 'integer' },
    synced_people_count: { type: 'integer' },
    attempts: { type: 'integer' },
    failed_attempts: { type: 'integer' },
    last_error: { type: 'string', nullable: true },
    last_attempted_at: { type: 'date_time', nullable: true },
    last_synced_at: { type: 'date_time', nullable: true },
    created_at: { type: 'date_time' },
    updated_at: { type: 'date_time' },
  },
  fields: [
    'provider',
    'status',
    'people_count',
    'synced_people_count',
    'attempts',
    'failed_attempts',
    'last_error',
    'last_attempted_at',
    'last_synced_at',
    'created_at',
    'updated_at',
  ],
  links: (row, base) => ({ self: `${base}/people/v2/lists/${String(row.list_id)}/bulkmail_sync_status` }),
};

/** Columns of a BulkmailSyncStatus row (alias `b`). */
export const BULKMAIL_SYNC_STATUS_SELECT =
  'b.id::text AS id, b.list_id::text AS list_id, b.provider, b.status, b.people_count, b.synced_people_count, b.attempts, b.failed_attempts, b.last_error, b.last_attempted_at, b.last_synced_at, b.created_at, b.updated_at';
