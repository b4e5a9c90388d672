/**
 * What an attempt's answer means for its event: exactly 200 delivers it; 410 Gone fails it and deactivates the
 * subscription at once; anything else (another status, a timeout, no connection, a refused address) is retried on
 * the schedule, and the schedule's last failure fails it and deactivates the subscription (a redelivery that fails
 * after it fails the event again, nothing more).
 */
import type { AttemptOutcome } from './event-store/index.ts';
import { MAX_RETRIES, retryDelayMs } from './retry-schedule.ts';

/** The outcome of attempt `attempt` answered with `status` (null: no response). */
export function attemptOutcome(status: number | null, attempt: number, retryScale: number): AttemptOutcome {
  if (status === 200) return { status: 'delivered', deactivate: false };
  if (status === 410) return { status: 'failed', deactivate: true };
  const retryInMs = retryDelayMs(attempt, retryScale);
  // The schedule's last attempt deactivates; a redelivery after it (an attempt beyond) only fails again.
  if (retryInMs === undefined) return { status: 'failed', deactivate: attempt === MAX_RETRIES + 1 };
  return { status: 'pending', retryInMs, deactivate: false };
}
