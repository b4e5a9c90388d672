import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const HOST = join(ROOT, 'host');

/** Every .ts/.tsx file of host/, migrations left out (they create the tables). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'migrations' || name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [relative(ROOT, path)] : [];
  });
}

/** The table named after an SQL keyword (the house writes SQL keywords in capitals; prose and URL paths never match). */
const sqlOn = (table: string) => new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+${table}\\b`);

/**
 * The one module that issues SQL on each table (a file, or a folder ending in `/`).
 */
const OWNERS: { table: string; owner: string }[] = [
  { table: 'oauth_applications', owner: 'host/oauth/applications.ts' },
  { table: 'addon_authorizations', owner: 'host/addons/authorizations/' },
  { table: 'addons', owner: 'host/addons/registry/' },
  { table: 'addon_versions', owner: 'host/addons/registry/' },
  { table: 'addon_installations', owner: 'host/addons/registry/' },
  { table: 'connected_application_people_allowed', owner: 'host/oauth/application-access.ts' },
  { table: 'connected_application_settings', owner: 'host/oauth/application-access.ts' },
  { table: 'host_sessions', owner: 'host/auth/host-sessions.ts' },
  { table: 'oauth_connections', owner: 'host/oauth/mau.ts' },
  { table: 'oauth_monthly_active_users', owner: 'host/oauth/mau.ts' },
  { table: 'oauth_signing_keys', owner: 'host/oauth/signing-keys.ts' },
  { table: 'personal_access_tokens', owner: 'host/auth/personal-access-tokens.ts' },
  { table: 'console_tokens', owner: 'host/auth/console-tokens.ts' },
  { table: 'rate_limits', owner: 'host/limits/limiter-store.ts' },
  { table: 'list_automations', owner: 'host/people/' },
  { table: 'lists', owner: 'host/people/' },
  { table: 'list_rules', owner: 'host/people/' },
  { table: 'list_results', owner: 'host/people/' },
  { table: 'list_shares', owner: 'host/people/' },
  { table: 'list_stars', owner: 'host/people/' },
  { table: 'list_views', owner: 'host/people/' },
  { table: 'list_categories', owner: 'host/people/' },
  { table: 'campuses', owner: 'host/people/' },
  { table: 'notes', owner: 'host/people/notes/' },
  { table: 'note_categories', owner: 'host/people/notes/' },
  { table: 'bulkmail_providers', owner: 'host/people/' },
  { table: 'bulkmail_sync_statuses', owner: 'host/people/' },
  { table: 'people', owner: 'host/directory/' },
  { table: 'organizations', owner: 'host/directory/' },
  { table: 'person_product_roles', owner: 'host/directory/' },
  { table: 'oauth_provider_records', owner: 'host/oauth/provider-records/' },
  { table: 'proxy_call_changes', owner: 'host/addons/proxy/proxy-call-changes.ts' },
  { table: 'webhook_subscriptions', owner: 'host/webhooks/subscription-store.ts' },
  { table: 'webhook_changes', owner: 'host/webhooks/event-store/' },
  { table: 'webhook_events', owner: 'host/webhooks/event-store/' },
  { table: 'webhook_deliveries', owner: 'host/webhooks/event-store/' },
];

describe('table owners', () => {
  const files = sources(HOST);
  it.each(OWNERS)('keeps the SQL on $table in $owner', ({ table, owner }) => {
    const issuing = files.filter((file) => sqlOn(table).test(readFileSync(join(ROOT, file), 'utf8')));
    const inOwner = (file: string) => (owner.endsWith('/') ? file.startsWith(owner) : file === owner);
    expect(issuing.filter(inOwner).length).toBeGreaterThan(0);
    expect(issuing.filter((file) => !inOwner(file))).toEqual([]);
  });

  it('names every table of the migrations [coverage]', () => {
    const migrations = join(HOST, 'db/migrations');
    const created = readdirSync(migrations).flatMap((name) =>
      [
        ...readFileSync(join(migrations, name), 'utf8').matchAll(
          /CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(\w+)/gi,
        ),
      ].map((m) => m[1]!),
    );
    const unowned = [...new Set(created)].filter((table) => !OWNERS.some((o) => o.table === table)).sort();
    expect(unowned).toEqual([]);
  });

  it('recognizes SQL on a table and ignores prose and URL paths [pattern]', () => {
    const pattern = sqlOn('oauth_applications');
    expect(pattern.test('SELECT id FROM oauth_applications WHERE id = $1')).toBe(true);
    expect(pattern.test('x JOIN\n  oauth_applications a ON true')).toBe(true);
    expect(pattern.test('UPDATE oauth_applications SET name = $2')).toBe(true);
    expect(pattern.test("path: '/oauth_applications/{oauth_application_id}'")).toBe(false);
    expect(pattern.test('read-only, from `oauth_applications`')).toBe(false);
  });
});
