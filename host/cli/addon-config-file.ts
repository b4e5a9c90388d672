/** Reading addon.config.json on the developer's machine, for `addon push|promote` and `doctor`. */
import { readFile } from 'node:fs/promises';
import { AddonConfigError, ENVIRONMENTS, parseAddonConfigText, type Environment } from '../addons/index.ts';
import { DEVELOPMENT_DEFAULTS } from '@addon-kit/integrator-template';
import { UsageError } from './args.ts';

/** The environment a flag or argument names; a usage mistake otherwise. */
export function environment(value: string | undefined, what: string): Environment {
  if (value === undefined) throw new UsageError(`${what} is required (one of ${ENVIRONMENTS.join(', ')})`);
  if (!(ENVIRONMENTS as readonly string[]).includes(value))
    throw new UsageError(`${what} must be one of ${ENVIRONMENTS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as Environment;
}

/** Variables for the config's placeholders: the environment, plus the template integrator's credentials in development. */
export function placeholderVariables(env: NodeJS.ProcessEnv, target: Environment): NodeJS.ProcessEnv {
  if (target !== 'development') return env;
  return {
    INTEGRATOR_CLIENT_ID: DEVELOPMENT_DEFAULTS.clientId,
    INTEGRATOR_CLIENT_SECRET: DEVELOPMENT_DEFAULTS.clientSecret,
    ...withoutEmpty(env),
  };
}

function withoutEmpty(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

/** An add-on config file that does not validate: its path and every problem. */
export class ConfigFileError extends Error {
  readonly code = 'invalid_config_file';
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super(`${path} is not a valid add-on config`);
  }
}

/** Prints a ConfigFileError: the file, then one line per problem. */
export function printConfigFileError(io: { err: (line: string) => void }, error: ConfigFileError): void {
  io.err(`${error.path} is not a valid add-on config:`);
  for (const problem of error.problems) io.err(`  - ${problem}`);
}

/** Parses the config file for one environment, its placeholders filled (ConfigFileError lists every problem). */
export async function loadConfig(path: string, target: Environment, env: NodeJS.ProcessEnv) {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read the add-on config ${path}`);
  }
  try {
    return parseAddonConfigText(text, { env: placeholderVariables(env, target), only: target });
  } catch (error) {
    if (error instanceof AddonConfigError) throw new ConfigFileError(path, error.problems);
    throw error;
  }
}
