/**
 * Builds the database template once per test run: migrated and seeded with the demo data. With
 * DATABASE_URL a PostgreSQL template database (each test file copies it); otherwise a PGlite data
 * directory dump (each test file loads it, ~0.5 s instead of ~3 s for a fresh instance + migrations + seed).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '#host/db/database.ts';
import { migrate } from '#host/db/migrate.ts';
import { seedDemo } from '#host/demo/seed/demo.ts';
import { TEST_PASSWORD } from './constants.ts';
import { adminUrl, withDatabase } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dbTemplate: { kind: 'pglite'; file: string } | { kind: 'postgres'; url: string; database: string; prefix: string };
  }
}

export default async function setup(project: TestProject) {
  const databaseUrl = process.env.DATABASE_URL;
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  if (databaseUrl) {
    const prefix = `addon_kit_test_${runId}`;
    const template = `${prefix}_template`;
    await withDatabase(adminUrl(databaseUrl), (db) => db.exec(`CREATE DATABASE ${template}`));
    const db = await openDatabase({ databaseUrl: withDatabaseName(databaseUrl, template) });
    await migrate(db);
    await seedDemo(db, { password: TEST_PASSWORD });
    await db.close();
    project.provide('dbTemplate', { kind: 'postgres', url: databaseUrl, database: template, prefix });
    return async () => {
      await withDatabase(adminUrl(databaseUrl), async (admin) => {
        const { rows } = await admin.query<{ datname: string }>(
          'SELECT datname FROM pg_database WHERE datname LIKE $1',
          [`${prefix}%`],
        );
        for (const { datname } of rows) await admin.exec(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      });
    };
  }
  const dir = join(process.cwd(), '.test-cache');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `template-${runId}.tar.gz`);
  const db = await openDatabase({ dataDir: 'memory://' });
  await migrate(db);
  await seedDemo(db, { password: TEST_PASSWORD });
  const dump = await (db as unknown as { pglite: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).pglite.dumpDataDir(
    'gzip',
  );
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  project.provide('dbTemplate', { kind: 'pglite', file });
  return async () => {
    await rm(file, { force: true });
  };
}

/** The same server URL naming another database. */
export function withDatabaseName(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
