/**
 * When the delivery worker fans out the changes People writes recorded (event-store/changes.ts): at its start, on
 * each NOTIFY (sent at a commit, to every process) or gap in listening, and on a poll when no NOTIFY would tell or at
 * least every FAN_OUT_AT_LEAST_EVERY_MS (a NOTIFY lost with its connection, a fan-out that failed). An attempt's end
 * wakes the worker without a fan-out: it records no change.
 */
import type { Database } from '../db/database.ts';
import { fanOutChanges } from './event-store/index.ts';

/** Changes fanned out by one statement (each into one event per subscription). */
export const FAN_OUT_BATCH = 100;

/** While the worker listens, a poll still looks for changes once this long after the last fan-out. */
const FAN_OUT_AT_LEAST_EVERY_MS = 10_000;

/** The worker's fan-outs. */
export interface ChangeFanOut {
  /** A NOTIFY (or a gap in listening): a change may have been recorded. */
  changed(): void;
  /** The worker's wait ran out; `listening`: whether a NOTIFY would have told it of a change. */
  polled(listening: boolean): void;
  /**
   * Fans out every change recorded so far, FAN_OUT_BATCH at a time, when one may have been (at the start of a pass, so
   * its claim sees their events). Two workers never take the same change. A failure leaves it to the next pass.
   */
  run(): Promise<void>;
}

export function createChangeFanOut(db: Database): ChangeFanOut {
  let pending = true;
  let last = 0;
  return {
    changed() {
      pending = true;
    },
    polled(listening) {
      if (!listening || Date.now() - last >= FAN_OUT_AT_LEAST_EVERY_MS) pending = true;
    },
    async run() {
      if (!pending) return;
      pending = false;
      last = Date.now();
      try {
        while ((await fanOutChanges(db, FAN_OUT_BATCH)).changes === FAN_OUT_BATCH);
      } catch (error) {
        pending = true;
        throw error;
      }
    },
  };
}
