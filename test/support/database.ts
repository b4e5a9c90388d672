/** A database for one test file: a copy of the run's migrated, seeded template. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';
import { openDatabase, type Database } from '#host/db/database.ts';
import { withDatabaseName } from './global-setup.ts';
import { adminUrl, withDatabase } from './postgres.ts';

/** Opens a private copy of the seeded template (PGlite or PostgreSQL, as the run is configured). */
export async function createTestDatabase(): Promise<Database> {
  const template = inject('dbTemplate');
  if (template.kind === 'pglite') {
    const blob = new Blob([await readFile(template.file)]);
    return openDatabase({ loadDataDir: blob });
  }
  const name = `${template.prefix}_${randomBytes(4).toString('hex')}`;
  await withDatabase(adminUrl(template.url), (admin) =>
    admin.exec(`CREATE DATABASE ${name} TEMPLATE ${template.database}`),
  );
  return openDatabase({ databaseUrl: withDatabaseName(template.url, name) });
}

/** A URL of a fresh, empty database for tests that need one (PostgreSQL runs only). */
export async function createEmptyPostgresDatabase(): Promise<string | undefined> {
  const template = inject('dbTemplate');
  if (template.kind !== 'postgres') return undefined;
  const name = `${template.prefix}_${randomBytes(4).toString('hex')}`;
  await withDatabase(adminUrl(template.url), (admin) => admin.exec(`CREATE DATABASE ${name}`));
  return withDatabaseName(template.url, name);
}
