/**
 * The host's List scheduler: every `intervalMs` it runs one auto-refresh pass (`refreshDueLists`); passes never
 * overlap within a process (passes.ts), and across processes the passes' leases keep each due list to one run.
 * `stop()` clears the timer and waits for a pass under way, so nothing is left to keep the process alive or to
 * touch a closed database.
 */
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { startPasses, type Passes } from '../passes.ts';
import { refreshDueLists, type RefreshedList } from './refresh-due-lists.ts';

export interface ListSchedulerOptions {
  db: Database;
  logger: Logger;
  /** Time between passes (the first pass comes one interval after the start). */
  intervalMs: number;
  /** The clock passes run at. */
  now?: () => Date;
  /** The host's base URL (the payload of a run's webhook event). */
  baseUrl?: string;
  /** Called after each pass with the lists it ran (tests, metrics). */
  onPass?: (refreshed: RefreshedList[]) => void;
}

/** `stop()` ends the passes and resolves once a pass under way has ended. */
export type ListScheduler = Passes;

/** Starts the scheduler; the caller must `stop()` it on shutdown. */
export function startListScheduler(options: ListSchedulerOptions): ListScheduler {
  const now = options.now ?? (() => new Date());
  return startPasses(options.intervalMs, async () => {
    try {
      const refreshed = await refreshDueLists(options.db, now(), undefined, options.logger, options.baseUrl);
      if (refreshed.length) options.logger.info({ lists: refreshed.length }, 'scheduled list runs done');
      options.onPass?.(refreshed);
    } catch (error) {
      options.logger.warn({ err: error }, 'scheduled list pass failed');
    }
  });
}
