/** Public face of the template integrator. */
export {
  createIntegrator,
  startIntegrator,
  type CreateIntegratorOptions,
  type Integrator,
  type RunningIntegrator,
  type StartIntegratorOptions,
} from './server.ts';
export {
  resolveIntegratorConfig,
  integratorConfigDefaults,
  DEVELOPMENT_DEFAULTS,
  IntegratorConfigError,
  type IntegratorConfig,
  type IntegratorConfigInput,
} from './config.ts';
export {
  openIntegratorDatabase,
  prepareIntegratorDatabase,
  migrateIntegrator,
  type OpenIntegratorDatabaseOptions,
  type Database,
  type Queryable,
} from './store/database.ts';
export { createLogger, type Logger } from './logger.ts';
export { COMPLETION_PATH, advanceUrl, type HostTokens, type HostTokensHandler } from './oauth/complete.ts';
export { systemClock, type Clock } from './clock.ts';
