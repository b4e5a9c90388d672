/**
 * Background work in passes: every `intervalMs` one pass runs, the next timed from the end of the previous one,
 * so passes never overlap within a process (the List scheduler, the embedded database's maintenance).
 */

export interface Passes {
  /**
   * Stops scheduling passes and resolves once a pass under way has ended (nothing is left to keep the process
   * alive or to touch a closed database).
   */
  stop(): Promise<void>;
}

/** Starts the passes; the first comes one interval after the start. `run` must not throw (it reports its own errors). */
export function startPasses(intervalMs: number, run: () => Promise<void>): Passes {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      pass = run().then(schedule);
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await pass;
    },
  };
}
