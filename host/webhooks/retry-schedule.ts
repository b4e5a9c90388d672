/**
 * When a failed event is tried again: up to 16 retries after the first attempt, the waits doubling from 30 seconds
 * (30 s, 1 min, 2 min, … 2^15 × 30 s ≈ 11.4 days for the last; about 22.8 days in all — the platform we model says
 * "about 5.4 days", which its own doubling from 30 s does not add up to; we keep its rule, not its total).
 * `scale` compresses every wait (tests run the whole schedule in seconds).
 */

/** Retries after the first attempt. */
export const MAX_RETRIES = 16;
/** The first wait, in milliseconds. */
export const FIRST_RETRY_MS = 30_000;

/** Milliseconds to wait after failed attempt `attempt` (1-based), or undefined when it was the last one. */
export function retryDelayMs(attempt: number, scale = 1): number | undefined {
  if (attempt > MAX_RETRIES) return undefined;
  return Math.round(FIRST_RETRY_MS * 2 ** (attempt - 1) * scale);
}
