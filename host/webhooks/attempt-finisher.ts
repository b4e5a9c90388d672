/**
 * Group finishing of the worker's attempts: at most one finishing statement in flight; the attempts that end while it
 * runs wait for the next, which records them all (event-store/ `finishAttempts`, with the deactivations of
 * subscription-store.ts in its transaction). A lone attempt is recorded at once; under load one statement serves many
 * attempts instead of one each (on the embedded database, whose one connection every statement queues on, that is
 * most of a delivery's cost). The same statement claims the next batch for the slots the batch frees (`NextClaimer`,
 * the worker's), so a busy worker runs one statement per batch.
 */
import type { Database } from '../db/database.ts';
import { finishAttempts, type ClaimedEvent, type FinishedAttempt } from './event-store/index.ts';
import { deactivateSubscription } from './subscription-store.ts';

/** At most this many attempts in one statement. */
const MAX_BATCH = 100;

interface Waiting {
  attempt: FinishedAttempt;
  resolve(finished: boolean): void;
  reject(error: unknown): void;
}

/** How a finishing statement claims the next batch: the worker's slots and its way of starting attempts. */
export interface NextClaimer {
  /** The lease of a claimed event, in milliseconds. */
  leaseMs: number;
  /** Reserves the slots the statement of `batchSize` attempts may fill; returns how many (0: claim nothing). */
  reserve(batchSize: number): number;
  /** Starts the claimed events' attempts and frees the reservation (called once per reserve, `[]` on a failure). */
  claimed(events: ClaimedEvent[], reserved: number): void;
}

/** Records ended attempts; `finish` resolves with whether the attempt was recorded (see `finishAttempts`). */
export interface AttemptFinisher {
  finish(attempt: FinishedAttempt): Promise<boolean>;
}

/** A lifecycle event (add-on → integrator) has no subscription to deactivate: it only fails. */
function subscriptionToDeactivate({ event, outcome }: FinishedAttempt): string | null {
  return outcome.deactivate ? event.subscription_id : null;
}

/**
 * Records a batch: one statement, which also claims the next batch; when an attempt of it deactivates its subscription
 * (410 Gone, the last failure), the statement and the deactivations commit together or not at all, and it claims
 * nothing (a claim must not read the subscription before its deactivation commits).
 */
async function record(db: Database, batch: FinishedAttempt[], claimer: NextClaimer | undefined): Promise<boolean[]> {
  if (!batch.some((attempt) => subscriptionToDeactivate(attempt) !== null)) {
    const reserved = claimer?.reserve(batch.length) ?? 0;
    let claimed: ClaimedEvent[] = [];
    try {
      const finished = await finishAttempts(db, batch, { limit: reserved, leaseMs: claimer?.leaseMs ?? 0 });
      claimed = finished.claimed;
      return finished.recorded;
    } finally {
      claimer?.claimed(claimed, reserved);
    }
  }
  return db.transaction(async (tx) => {
    const { recorded } = await finishAttempts(tx, batch);
    const deactivated = new Set(
      batch.flatMap((attempt, i) => (recorded[i] ? [subscriptionToDeactivate(attempt)] : [])),
    );
    for (const subscription of deactivated) if (subscription !== null) await deactivateSubscription(tx, subscription);
    return recorded;
  });
}

export function createAttemptFinisher(db: Database, claimer?: NextClaimer): AttemptFinisher {
  const waiting: Waiting[] = [];
  let running = false;

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        const finished = await record(
          db,
          batch.map((w) => w.attempt),
          claimer,
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
