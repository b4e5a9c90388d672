/**
 * `addon-kit addon push --env E` and `addon-kit addon promote <from> <to>` (and the dispatch to `addon build|dev`): register the add-on
 * config and built bundle with a running host through its registry API (`/addons/v1`, see
 * host/addons/registry/registry.ts), authenticated by a personal access token of an organization
 * administrator (HTTP Basic). Only the target environment's `${VAR}` placeholders are filled, here on
 * the developer's machine; for development the template integrator's credentials are the defaults.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AddonConfigError, type Environment } from '../addons/index.ts';
import { environment, loadConfig } from './addon-config-file.ts';
import { parse, UsageError } from './args.ts';
import {
  ADDON_BUILD_FORM,
  ADDON_DEV_FORM,
  ADDON_PROMOTE_FORM,
  ADDON_PUSH_FORM,
  unknownAction,
} from './command-specs.ts';
import type { CommandIo } from './io.ts';

function authorization(env: NodeJS.ProcessEnv): string {
  const id = env.ADDON_KIT_PAT_CLIENT_ID;
  const secret = env.ADDON_KIT_PAT_SECRET;
  if (!id || !secret)
    throw new UsageError(
      'set ADDON_KIT_PAT_CLIENT_ID and ADDON_KIT_PAT_SECRET to a personal access token of an organization administrator (addon-kit pat create)',
    );
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** Sends one registry request and prints the outcome; returns the exit code. */
async function send(
  io: CommandIo,
  url: string,
  method: 'PUT' | 'POST',
  auth: string,
  body: unknown,
  done: (attributes: Record<string, unknown>) => string,
): Promise<number> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: auth,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'addon-kit-cli',
      },
      body: JSON.stringify(body),
    });
  } catch {
    io.err(`cannot reach the host at ${new URL(url).origin}; is it running (addon-kit start)?`);
    return 1;
  }
  const payload = (await response.json().catch(() => undefined)) as
    | {
        data?: { attributes?: Record<string, unknown> };
        errors?: { status: string; title: string; detail: string; source?: { parameter: string } }[];
      }
    | undefined;
  if (response.status === 201 && payload?.data?.attributes) {
    io.out(done(payload.data.attributes));
    return 0;
  }
  io.err(`the host refused the request (HTTP ${response.status}):`);
  for (const e of payload?.errors ?? [])
    io.err(`  - ${e.source?.parameter ? `${e.source.parameter}: ` : ''}${e.detail || e.title}`);
  return 1;
}

/** What one push sends. */
export interface PushOptions {
  /** The host's base URL, no trailing slash. */
  host: string;
  configPath: string;
  target: Environment;
  /** The built add-on (classic script), or how to read it (after the config is known to be valid). */
  bundle: string | (() => Promise<string>);
  env: NodeJS.ProcessEnv;
}

/**
 * Registers the config (that environment's placeholders filled) and the bundle as a new version; prints the
 * outcome. Resolves with the exit code; AddonConfigError and UsageError propagate.
 */
export async function pushAddon(io: CommandIo, options: PushOptions): Promise<number> {
  const { host, target } = options;
  const config = await loadConfig(options.configPath, target, options.env);
  const bundle = typeof options.bundle === 'string' ? options.bundle : await options.bundle();
  const auth = authorization(options.env);
  return send(
    io,
    `${host}/addons/v1/applications/${config.oauth_application_id}/environments/${target}`,
    'PUT',
    auth,
    { config, bundle },
    (a) =>
      `pushed add-on ${config.oauth_application_id} to ${target}: version ${String(a.version)} (bundle sha256 ${String(a.bundle_sha256)})`,
  );
}

/** Runs `addon push|promote|build|dev`; resolves with the exit code. */
export async function addonCommand(
  argv: string[],
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [action, ...rest] = argv;
  if (action === ADDON_BUILD_FORM.action) return (await import('./addon-build-command.ts')).addonBuildCommand(rest, io);
  if (action === ADDON_DEV_FORM.action) return (await import('./addon-dev-command.ts')).addonDevCommand(rest, io, env);
  if (action !== ADDON_PUSH_FORM.action && action !== ADDON_PROMOTE_FORM.action) throw unknownAction('addon', action);
  const hostOf = (flag: string | undefined) =>
    (flag ?? env.ADDON_KIT_BASE_URL ?? 'http://localhost:4000').replace(/\/+$/, '');
  let configPath = '';
  try {
    if (action === 'push') {
      const { values } = parse(rest, ADDON_PUSH_FORM.options);
      configPath = resolve(values.config ?? 'addon.config.json');
      const target = environment(values.env, '--env');
      const bundlePath = resolve(values.bundle ?? 'dist/addon.js');
      const bundle = () =>
        readFile(bundlePath, 'utf8').catch(() => {
          throw new UsageError(`cannot read the add-on bundle ${bundlePath}; build the add-on first or pass --bundle`);
        });
      return await pushAddon(io, { host: hostOf(values.host), configPath, target, bundle, env });
    }
    const { values, positionals } = parse(rest, ADDON_PROMOTE_FORM.options, ADDON_PROMOTE_FORM.positionals.length);
    configPath = resolve(values.config ?? 'addon.config.json');
    const from = environment(positionals[0], '<from>');
    const to = environment(positionals[1], '<to>');
    const config = await loadConfig(configPath, to, env);
    const auth = authorization(env);
    const url = `${hostOf(values.host)}/addons/v1/applications/${config.oauth_application_id}/environments/${to}/promotions`;
    return await send(
      io,
      url,
      'POST',
      auth,
      { from, config },
      (a) =>
        `promoted add-on ${config.oauth_application_id} from ${from} to ${to}: version ${String(a.version)} (bundle sha256 ${String(a.bundle_sha256)})`,
    );
  } catch (error) {
    if (!(error instanceof AddonConfigError)) throw error;
    io.err(`${configPath} is not a valid add-on config:`);
    for (const problem of error.problems) io.err(`  - ${problem}`);
    return 1;
  }
}
