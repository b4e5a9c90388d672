/**
 * An add-on project's config as pushed to one host: its `${VAR}` placeholders filled (the application id from the
 * environment, else the one remembered for that host in `.addon-kit.json`), its development integrator moved when
 * `--integrator` says so — and, for `addon dev` and a development push with no application yet, the add-on's OAuth
 * application created through the registry and remembered. In development the integrator's completion URL is made
 * a redirect URI of the application, so the handshake's first step may go there.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { withIntegratorAt, type AddonConfig, type Environment } from '../addons/index.ts';
import { ConfigFileError, loadConfig, placeholderVariables } from './addon-config-file.ts';
import { rememberApplicationId, rememberedApplicationId, PROJECT_FILE } from './addon-project.ts';
import { UsageError } from './args.ts';
import type { RegistryAuth } from './auth/registry-auth.ts';
import type { CommandIo } from './io.ts';
import { printRefusal, registryRequest } from './registry-client.ts';

/** The placeholder of the application id in an add-on config. */
const APPLICATION_ID = '${ADDON_OAUTH_APPLICATION_ID}';

/** Where and how a project's config is read. */
export interface ProjectConfigOptions {
  /** The host's base URL, no trailing slash. */
  host: string;
  configPath: string;
  target: Environment;
  env: NodeJS.ProcessEnv;
  /** `--integrator URL`: the development environment's integrator (default: the config's URLs). */
  integrator?: string | undefined;
}

/** The config for one environment, placeholders filled, the development integrator moved; no request made. */
export async function loadProjectConfig(options: ProjectConfigOptions): Promise<AddonConfig> {
  const { env, configPath, host, target } = options;
  const remembered = env.ADDON_OAUTH_APPLICATION_ID ? undefined : await rememberedApplicationId(configPath, host);
  let config: AddonConfig;
  try {
    config = await loadConfig(
      configPath,
      target,
      remembered ? { ...env, ADDON_OAUTH_APPLICATION_ID: remembered } : env,
    );
  } catch (error) {
    if (error instanceof ConfigFileError && error.problems.some((p) => p.includes('ADDON_OAUTH_APPLICATION_ID')))
      throw new UsageError(
        `this add-on has no OAuth application on ${host} yet: \`npm run dev\` (addon-kit addon dev) creates one and ` +
          `remembers it in ${PROJECT_FILE}; or set ADDON_OAUTH_APPLICATION_ID to its application ID`,
      );
    throw error;
  }
  return options.integrator && target === 'development'
    ? withIntegratorAt(config, 'development', options.integrator)
    : config;
}

/** What the raw config says about a new application: its name, scopes and development completion URL. */
async function applicationRequest(options: ProjectConfigOptions) {
  const raw = JSON.parse(await readFile(options.configPath, 'utf8')) as {
    scopes?: unknown;
    ui_extensions?: Record<string, { title?: unknown }>;
    environments?: { development?: { integrator_oauth?: { redirect_url?: unknown } } };
  };
  const title = Object.values(raw.ui_extensions ?? {})
    .map((e) => e.title)
    .find((t): t is string => typeof t === 'string' && t.trim() !== '');
  const redirect = raw.environments?.development?.integrator_oauth?.redirect_url;
  if (typeof redirect !== 'string')
    throw new UsageError(`${options.configPath} has no development integrator_oauth.redirect_url`);
  // Other placeholders (none in a scaffolded config) are filled as a push fills them; the id stays for the host.
  const variables = placeholderVariables(options.env, 'development');
  const filled = redirect.replace(/\$\{([A-Z0-9_]+)\}/g, (whole, name: string) =>
    whole === APPLICATION_ID ? whole : (variables[name] ?? whole),
  );
  return {
    name: title ?? basename(dirname(options.configPath)),
    scopes: Array.isArray(raw.scopes) ? raw.scopes : [],
    redirect_uris: [options.integrator ? moveKeepingPlaceholder(filled, options.integrator) : filled],
  };
}

/** `moveOnto` for a URL whose path may hold `${…}` (not a valid URL character sequence until filled). */
function moveKeepingPlaceholder(url: string, base: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]*/i, '');
  return `${base.replace(/\/+$/, '')}${path === '/' ? '' : path}`;
}

/**
 * The config for a push: as `loadProjectConfig`, but in development a missing application is created (and
 * remembered) and the completion URL registered with it. Resolves with the exit code's reason to stop, if any.
 */
export async function prepareDevelopmentPush(
  io: CommandIo,
  auth: RegistryAuth,
  options: ProjectConfigOptions,
): Promise<AddonConfig | undefined> {
  const { host, configPath, env } = options;
  const needsApplication =
    !env.ADDON_OAUTH_APPLICATION_ID &&
    !(await rememberedApplicationId(configPath, host)) &&
    (await readFile(configPath, 'utf8').catch(() => '')).includes(APPLICATION_ID);
  if (needsApplication) {
    const request = await applicationRequest(options);
    const answer = await registryRequest(auth, `${host}/addons/v1/applications`, 'POST', request);
    const id = answer.payload?.data?.id;
    if (answer.status !== 201 || !id) {
      printRefusal(io, answer);
      return undefined;
    }
    await rememberApplicationId(configPath, host, id);
    io.err(
      `addon-kit: created the OAuth application "${request.name}" on ${host}: application ID ${id}, client ID ` +
        `${String(answer.payload?.data?.attributes?.client_id)} (remembered in ${PROJECT_FILE})`,
    );
  }
  const config = await loadProjectConfig(options);
  const redirect = config.environments.development!.integrator_oauth.redirect_url;
  const answer = await registryRequest(
    auth,
    `${host}/addons/v1/applications/${config.oauth_application_id}/redirect_uris`,
    'POST',
    { redirect_uri: redirect },
  );
  if (answer.status === 201)
    io.err(`addon-kit: ${redirect} is now a redirect URI of application ${config.oauth_application_id}`);
  else if (answer.status !== 200) {
    printRefusal(io, answer);
    return undefined;
  }
  return config;
}
