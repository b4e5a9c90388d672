import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIntegratorDatabase, prepareIntegratorDatabase } from '../store/database.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'integrator-create-'));
  dirs.push(dir);
  return dir;
}

describe('prepareIntegratorDatabase() — the embedded database created on a worker thread', () => {
  it('creates <dataDir>/integrator; opening waits for it, then migrates it; a second call leaves it alone [created in the background]', async () => {
    const dataDir = await tempDir();
    const errors: string[] = [];
    let created = false;
    const creating = prepareIntegratorDatabase({ dataDir }, (message) => errors.push(message)).then(
      () => (created = true),
    );
    const db = await openIntegratorDatabase({ dataDir });
    try {
      // Opening returned only after the worker had created the database and closed its own instance.
      expect(created).toBe(true);
      expect(errors).toEqual([]);
      const { rows } = await db.query<{ versions: number }>('SELECT count(*)::int AS versions FROM schema_migrations');
      expect(rows[0]!.versions).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    await creating;
    const marker = join(dataDir, 'integrator', 'PG_VERSION');
    expect((await readFile(marker, 'utf8')).trim()).toMatch(/^\d+$/);
    const before = (await stat(marker)).mtimeMs;
    await prepareIntegratorDatabase({ dataDir }, (message) => errors.push(message));
    expect((await stat(marker)).mtimeMs).toBe(before);
    expect(errors).toEqual([]);
    // Two embedded databases created on disk: seconds each, far more on a busy machine (a scaffold's first npm test).
  }, 120_000);

  it('does nothing on PostgreSQL or in memory [nothing to create]', async () => {
    const dataDir = await tempDir();
    await prepareIntegratorDatabase({ databaseUrl: 'postgres://nowhere.invalid/db', dataDir });
    await prepareIntegratorDatabase({ dataDir: 'memory://' });
    await expect(stat(join(dataDir, 'integrator'))).rejects.toThrow(/ENOENT/);
  });

  it('reports a directory it cannot create and resolves; opening then meets the same error [cannot create]', async () => {
    const file = join(await tempDir(), 'a-file');
    await writeFile(file, 'not a directory');
    const errors: string[] = [];
    await prepareIntegratorDatabase({ dataDir: file }, (message) => errors.push(message));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/ENOTDIR/);
    await expect(openIntegratorDatabase({ dataDir: file })).rejects.toThrow(/ENOTDIR/);
  });
});
