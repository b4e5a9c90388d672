/**
 * The embedded database's autovacuum (db/embedded-maintenance.ts): PGlite has no autovacuum worker, so the host
 * vacuums and analyzes the tables that autovacuum's default thresholds make due; PostgreSQL is left to its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '#host/db/database.ts';
import {
  maintainOnce,
  startEmbeddedMaintenance,
  tablesDue,
  type TableMaintenance,
} from '#host/db/embedded-maintenance.ts';
import { createLogger } from '#host/logger.ts';
import { createEmptyPostgresDatabase } from '../../support/database.ts';

const url = await createEmptyPostgresDatabase();
const logger = createLogger('silent');

interface TableState {
  reltuples: number;
  analyzed: boolean;
  dead: number;
}

async function state(db: Database, table: string): Promise<TableState> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<TableState>(
    `SELECT c.reltuples::float8 AS reltuples, s.last_analyze IS NOT NULL AS analyzed, s.n_dead_tup::int AS dead
     FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = $1`,
    [table],
  );
  return rows[0]!;
}

describe.runIf(!url)('embedded database maintenance (PGlite)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({});
    await db.exec(`
      CREATE TABLE churned (id int PRIMARY KEY, v int);
      INSERT INTO churned SELECT i, i FROM generate_series(1, 2000) i;
      CREATE TABLE grown (id int PRIMARY KEY);
      INSERT INTO grown SELECT i FROM generate_series(1, 500) i;
      CREATE TABLE quiet (id int PRIMARY KEY);
      INSERT INTO quiet SELECT i FROM generate_series(1, 1000) i;
      CREATE TABLE empty (id int PRIMARY KEY);`);
    // The inserts' counts reach the statistics before the analysis (a backend reports them only now and then).
    await db.query('SELECT pg_stat_force_next_flush()');
    await db.exec('ANALYZE quiet');
    await db.exec('INSERT INTO quiet VALUES (1001)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('vacuums a table with many dead rows, analyzes one never analyzed, leaves one barely changed and an empty one [thresholds]', async () => {
    await db.exec('ANALYZE churned');
    await db.exec('DELETE FROM churned WHERE id <= 1000');
    expect(await state(db, 'grown')).toEqual({ reltuples: -1, analyzed: false, dead: 0 });
    expect(await tablesDue(db)).toEqual([
      { table: 'churned', action: 'vacuum' },
      { table: 'grown', action: 'analyze' },
    ]);

    const done = await maintainOnce(db);
    expect(done).toEqual([
      { table: 'churned', action: 'vacuum' },
      { table: 'grown', action: 'analyze' },
    ]);
    expect(await state(db, 'churned')).toEqual({ reltuples: 1000, analyzed: true, dead: 0 });
    expect(await state(db, 'grown')).toEqual({ reltuples: 500, analyzed: true, dead: 0 });
    // One row added since its analysis (under 50 + 10 %): not due; nor is the empty table.
    expect(await state(db, 'quiet')).toMatchObject({ reltuples: 1000 });
    expect(await tablesDue(db)).toEqual([]);
    expect(await maintainOnce(db)).toEqual([]);
  });

  it('runs passes every interval until stopped, and stop() waits for a pass under way [passes]', async () => {
    await db.exec('INSERT INTO grown SELECT i FROM generate_series(501, 1000) i');
    const passes: TableMaintenance[][] = [];
    const maintenance = startEmbeddedMaintenance({ db, logger, intervalMs: 20, onPass: (done) => passes.push(done) });
    await expect.poll(() => passes.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    await maintenance.stop();
    const seen = passes.length;
    expect(passes[0]).toEqual([{ table: 'grown', action: 'analyze' }]);
    expect(passes.slice(1).every((done) => done.length === 0)).toBe(true);
    expect(await state(db, 'grown')).toMatchObject({ reltuples: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(passes.length).toBe(seen);
  });

  it('does nothing when the interval is 0 [off]', async () => {
    await db.exec('INSERT INTO grown SELECT i FROM generate_series(1001, 2000) i');
    const passes: TableMaintenance[][] = [];
    const maintenance = startEmbeddedMaintenance({ db, logger, intervalMs: 0, onPass: (done) => passes.push(done) });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await maintenance.stop();
    expect(passes).toEqual([]);
    expect(await state(db, 'grown')).toMatchObject({ reltuples: 1000 });
  });
});

describe.runIf(url)('embedded database maintenance on PostgreSQL', () => {
  it('runs no pass: the server runs its own autovacuum [postgres]', async () => {
    const db = await openDatabase({ databaseUrl: url! });
    try {
      const passes: TableMaintenance[][] = [];
      const maintenance = startEmbeddedMaintenance({ db, logger, intervalMs: 10, onPass: (done) => passes.push(done) });
      await new Promise((resolve) => setTimeout(resolve, 80));
      await maintenance.stop();
      expect(passes).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
