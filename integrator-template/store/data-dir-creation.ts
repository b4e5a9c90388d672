/**
 * Creating an embedded PGlite database (its initdb) holds its thread for seconds, and the first `addon-kit start`
 * creates two: the host's and this integrator's. `createDataDirInBackground` creates the integrator's on a worker
 * thread while the host creates its own on the main thread, so the two run on two cores; `openIntegratorDatabase`
 * waits for a creation under way before it opens the directory (never two PGlite instances on one directory).
 *
 * The worker only creates and closes the database; a directory that already holds one is left alone. When the
 * worker fails, opening creates the database on the calling thread as before (and reports any real error there).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, plain CommonJS (the worker runs outside tsx): creates the database in `workerData.dataDir`
 * with the PGlite module at `workerData.pglite` (the path this package resolves), then closes it.
 */
const CREATE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { PGlite } = require(workerData.pglite);
  const db = new PGlite({ dataDir: workerData.dataDir });
  await db.waitReady;
  await db.close();
})().then(() => parentPort.postMessage(null), (error) => parentPort.postMessage(String(error?.message ?? error)));
`;

/** Creations under way, by absolute directory. */
const underWay = new Map<string, Promise<void>>();

/** Whether `dataDir` already holds a database (PostgreSQL's cluster marker). */
function holdsDatabase(dataDir: string): boolean {
  return existsSync(resolve(dataDir, 'PG_VERSION'));
}

/**
 * Starts creating the PGlite database in `dataDir` on a worker thread, unless it exists or is being created;
 * from its return on, `dataDirCreated(dataDir)` waits for it. Resolves once the worker is done, successfully or
 * not (`onError` hears why not); never rejects.
 */
export function createDataDirInBackground(dataDir: string, onError?: (message: string) => void): Promise<void> {
  const dir = resolve(dataDir);
  const pending = underWay.get(dir);
  if (pending) return pending;
  if (holdsDatabase(dir)) return Promise.resolve();
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    // Opening will meet the same problem and report it; nothing to create in the background.
    onError?.((error as Error).message);
    return Promise.resolve();
  }
  const done = new Promise<void>((settle) => {
    const worker = new Worker(CREATE, {
      eval: true,
      workerData: { dataDir: dir, pglite: createRequire(import.meta.url).resolve('@electric-sql/pglite') },
    });
    let finished = false;
    const finish = (message: string | null) => {
      if (finished) return;
      finished = true;
      if (message !== null) onError?.(message);
      settle();
    };
    worker.once('message', finish);
    worker.once('error', (error) => finish(error.message));
    worker.once('exit', (code) => finish(code === 0 ? null : `the worker exited with code ${code}`));
  }).finally(() => underWay.delete(dir));
  underWay.set(dir, done);
  return done;
}

/** Waits for a creation of `dataDir` under way, if any. */
export async function dataDirCreated(dataDir: string): Promise<void> {
  await underWay.get(resolve(dataDir));
}
