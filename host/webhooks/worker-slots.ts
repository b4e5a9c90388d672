/**
 * The delivery worker's attempt slots (`webhookConcurrency`): the attempts in flight, and the slots promised to claims
 * under way — the worker's own or a finishing statement's (attempt-finisher.ts) — so two claims never fill the same
 * free slots. A claim takes slots only once half of them are free: the attempts claimed together end together, so
 * their finishing statement serves a large batch.
 */

/** The slots of one worker. */
export interface WorkerSlots {
  /** The attempts in flight. */
  readonly inFlight: Set<Promise<void>>;
  /** Reserves the free slots for a claim of the worker's own; 0 while fewer than half are free (or once closed). */
  reserveForClaim(): number;
  /** Would `reserveForClaim` reserve any slot now? (Reserves nothing: whether an ended attempt should wake the worker.) */
  claimable(): boolean;
  /**
   * Reserves the slots a finishing statement of `batchSize` attempts may claim: those its attempts (still in flight
   * until it ends) free, with the others free; 0 while they are fewer than half (or once closed).
   */
  reserveAfterBatch(batchSize: number): number;
  /** Frees a reservation once its claim has ended (its claimed attempts started). */
  release(slots: number): void;
  /** Reserves nothing more (the worker stops). */
  close(): void;
}

export function createWorkerSlots(concurrency: number): WorkerSlots {
  const inFlight = new Set<Promise<void>>();
  let reserved = 0;
  let closed = false;
  const enough = (free: number): boolean => !closed && free > 0 && (free >= concurrency || free * 2 >= concurrency);
  const take = (free: number): number => {
    if (!enough(free)) return 0;
    reserved += free;
    return free;
  };
  return {
    inFlight,
    reserveForClaim: () => take(concurrency - inFlight.size - reserved),
    claimable: () => enough(concurrency - inFlight.size - reserved),
    reserveAfterBatch: (batchSize) => take(concurrency - inFlight.size + batchSize - reserved),
    release(slots) {
      reserved -= slots;
    },
    close() {
      closed = true;
    },
  };
}
