/**
 * Group finishing of the worker's attempts: at most one finishing statement in flight; the attempts that end while it
 * runs wait for the next, which records them all (event-store.ts `finishAttempts`, with the deactivations of
 * subscription-store.ts in its transaction). A lone attempt is recorded at
 * once; under load one statement serves many attempts instead of one each (on the embedded database, whose one
 * connection every statement queues on, that is most of a delivery's cost).
 */
import type { Database } from '../db/database.ts';
import { finishAttempts, type FinishedAttempt } from './event-store/index.ts';
import { deactivateSubscription } from './subscription-store.ts';

/** At most this many attempts in one statement. */
const MAX_BATCH = 100;

interface Waiting {
  attempt: FinishedAttempt;
  resolve(finished: boolean): void;
  reject(error: unknown): void;
}

/** Records ended attempts; `finish` resolves with whether the attempt was recorded (see `finishAttempts`). */
export interface AttemptFinisher {
  finish(attempt: FinishedAttempt): Promise<boolean>;
}

/**
 * Records a batch: one statement; when an attempt of it deactivates its subscription (410 Gone, the last failure), the
 * statement and the deactivations commit together or not at all.
 */
async function record(db: Database, batch: FinishedAttempt[]): Promise<boolean[]> {
  // A lifecycle event (add-on → integrator) has no subscription to deactivate: it only fails.
  const subscriptionToDeactivate = ({ event, outcome }: FinishedAttempt) =>
    outcome.deactivate ? event.subscription_id : null;
  if (!batch.some((attempt) => subscriptionToDeactivate(attempt) !== null)) return finishAttempts(db, batch);
  return db.transaction(async (tx) => {
    const finished = await finishAttempts(tx, batch);
    const deactivated = new Set(
      batch.flatMap((attempt, i) => (finished[i] ? [subscriptionToDeactivate(attempt)] : [])),
    );
    for (const subscription of deactivated) if (subscription !== null) await deactivateSubscription(tx, subscription);
    return finished;
  });
}

export function createAttemptFinisher(db: Database): AttemptFinisher {
  const waiting: Waiting[] = [];
  let running = false;

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const finished = await record(
          db,
          batch.map((w) => w.attempt),
        );
        batch.forEach((w, i) => w.resolve(finished[i]!));
      } catch (error) {
        // Each attempt's worker logs it; the leases run out and the events are claimed again (at least once).
        for (const w of batch) w.reject(error);
      }
    }
    running = false;
  }

  return {
    finish(attempt) {
      return new Promise<boolean>((resolve, reject) => {
        waiting.push({ attempt, resolve, reject });
        // Started after this turn's I/O callbacks: the attempts whose responses arrived together (while the embedded
        // database held the event loop, say) then share the statement instead of the first going alone.
        if (!running) {
          running = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
