/**
 * The delivery worker's slots (`webhookConcurrency`): at most `concurrency` exchanges under way at once, and up to as
 * many claimed attempts more waiting for one, so the next batch is already claimed when a batch's exchanges end: it
 * is sent while the batch's finishing statement (attempt-finisher.ts) records it and claims the one after. (Before,
 * every slot waited for that statement: on PostgreSQL the receiver idled for its round trip, about half the time.)
 *
 * The claims' slots are the attempts claimed and not yet recorded (waiting, sending or being recorded), and the slots
 * promised to claims under way — the worker's own or a finishing statement's — so two claims never fill the same free
 * slots. A claim takes slots only once half of them are free: the attempts claimed together end together, so their
 * finishing statement serves a large batch.
 */

/** The slots of one worker. */
export interface WorkerSlots {
  /** The attempts claimed and not yet recorded. */
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
  /**
   * Runs an exchange once fewer than `concurrency` are under way (at once, or when one ends: the longest waiting
   * first), and resolves with its result.
   */
  send<T>(exchange: () => Promise<T>): Promise<T>;
}

export function createWorkerSlots(concurrency: number): WorkerSlots {
  // The claimed attempts: `concurrency` sending and as many waiting to.
  const claimSlots = 2 * concurrency;
  const inFlight = new Set<Promise<void>>();
  let reserved = 0;
  let closed = false;
  let sending = 0;
  const waiting: (() => void)[] = [];
  const enough = (free: number): boolean => !closed && free > 0 && free * 2 >= claimSlots;
  const take = (free: number): number => {
    if (!enough(free)) return 0;
    reserved += free;
    return free;
  };
  return {
    inFlight,
    reserveForClaim: () => take(claimSlots - inFlight.size - reserved),
    claimable: () => enough(claimSlots - inFlight.size - reserved),
    reserveAfterBatch: (batchSize) => take(claimSlots - inFlight.size + batchSize - reserved),
    release(slots) {
      reserved -= slots;
    },
    close() {
      closed = true;
    },
    async send(exchange) {
      if (sending < concurrency) sending++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await exchange();
      } finally {
        // The slot goes straight to the longest waiting exchange, if any.
        const next = waiting.shift();
        if (next) next();
        else sending--;
      }
    },
  };
}
