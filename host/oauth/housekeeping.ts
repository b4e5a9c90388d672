/**
 * Periodic clean-up of the provider's storage: records expired for more than a day (codes and refresh
 * tokens are still found until then, for replay detection) and monthly-active-user rows older than the
 * 24 months of history the spec keeps; and the records of expired host login sessions and /docs console tokens.
 */
import { purgeExpiredConsoleTokens } from '../auth/console-tokens.ts';
import { purgeExpiredSessions } from '../auth/host-sessions.ts';
import type { Queryable } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { purgeExpiredOAuthRecords } from './provider-records/index.ts';
import { purgeOldMonthlyActiveUsers } from './mau.ts';

export { purgeOldMonthlyActiveUsers };

/** Runs the clean-ups every `intervalMs` (first run after one interval); `stop()` ends it. */
export function startOAuthHousekeeping(db: Queryable, logger: Logger, intervalMs = 60 * 60 * 1000): { stop(): void } {
  const timer = setInterval(() => {
    Promise.all([
      purgeExpiredOAuthRecords(db),
      purgeOldMonthlyActiveUsers(db),
      purgeExpiredSessions(db),
      purgeExpiredConsoleTokens(db),
    ]).catch((error: Error) =>
      logger.warn({ err: { name: error.name, message: error.message } }, 'oauth housekeeping failed'),
    );
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
