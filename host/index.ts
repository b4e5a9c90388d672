/** The host platform's public face: build it (createHost), start it as `addon-kit start` does (startHost), configure and store. */
export { createHost, type Host, type HostDeps } from './app.ts';
export { startHost, type HostCompanion, type RunningHost, type StartOptions } from './main.ts';
export { resolveHostConfig, ConfigError, type HostConfig, type HostConfigInput } from './config.ts';
export {
  openDatabase,
  DataDirInUseError,
  type Database,
  type Queryable,
  type OpenDatabaseOptions,
} from './db/database.ts';
export { migrate } from './db/migrate.ts';
export { createLogger, type Logger } from './logger.ts';
