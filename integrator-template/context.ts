/** What every route of the integrator needs, built once by `createIntegrator`. */
import type { Logger } from './logger.ts';
import type { Database } from './store/sql.ts';
import type { Clock } from './clock.ts';
import type { IntegratorConfig } from './config.ts';
import type { PageSite } from './pages/site.ts';
import type { SessionSettings } from './session.ts';

/** Configuration, storage, logger, clock and secrets shared by the routes. */
export interface IntegratorContext {
  config: IntegratorConfig;
  db: Database;
  logger: Logger;
  now: Clock;
  session: SessionSettings;
  /** The service's name and page assets. */
  site: PageSite;
  /** The name of a host OAuth application learnt at completion, when the integrator can ask the host. */
  applicationName?: ((oauthApplicationId: number) => Promise<string | undefined>) | undefined;
  /** Derives a rotated refresh token's successor (see `store/tokens.ts`). */
  derive: (purpose: 'access' | 'refresh', previous: string) => string;
}
