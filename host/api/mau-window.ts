/**
 * The months of monthly-active-user history the API shows: the last 24 (the current one included),
 * and never one before February 2019, when history starts.
 */

/** Months kept, the current one included. */
export const MAU_HISTORY_MONTHS = 24;
/** The first month with history: February 2019. */
export const MAU_HISTORY_START = { year: 2019, month: 2 } as const;

/** A month as a running index (`year * 12 + month - 1`), so ranges are integer comparisons. */
export function monthIndex(year: number, month: number): number {
  return year * 12 + month - 1;
}

/** First and last month index shown at `now` (UTC); `first > last` when nothing can be shown. */
export function mauWindow(now: Date): { first: number; last: number } {
  const last = monthIndex(now.getUTCFullYear(), now.getUTCMonth() + 1);
  const first = Math.max(last - (MAU_HISTORY_MONTHS - 1), monthIndex(MAU_HISTORY_START.year, MAU_HISTORY_START.month));
  return { first, last };
}
