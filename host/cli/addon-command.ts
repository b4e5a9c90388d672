/**
 * `addon-kit addon push --env E` and `addon-kit addon promote <from> <to>` (and the dispatch to `addon build|dev`):
 * register the add-on config and built bundle with a running host through its registry API (`/addons/v1`, see
 * host/addons/registry.ts), as the CLI signed in to that host (`addon-kit login`, asked for in the browser when
 * missing) or, in CI, with a personal access token of an organization administrator. Only the target environment's
 * `${VAR}` placeholders are filled, here on the developer's machine (addon-application.ts).
 * @example addon-kit addon push --env development
 * @example addon-kit addon promote development beta
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadProjectConfig, prepareDevelopmentPush } from './addon-application.ts';
import { ConfigFileError, environment, printConfigFileError } from './addon-config-file.ts';
import { pushAddon } from './addon-push.ts';
import { parse, UsageError } from './args.ts';
import { registryAuth } from './auth/registry-auth.ts';
import { SignInError } from './auth/sign-in.ts';
import {
  ADDON_BUILD_FORM,
  ADDON_DEV_FORM,
  ADDON_PROMOTE_FORM,
  ADDON_PUSH_FORM,
  unknownAction,
} from './command-specs.ts';
import { hostUrl } from './host-url.ts';
import type { CommandIo } from './io.ts';
import { HostUnreachableError, printRefusal, registryRequest } from './registry-client.ts';

/** `addon push`: resolves with the exit code. */
async function push(rest: string[], io: CommandIo, env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parse(rest, ADDON_PUSH_FORM.options);
  const configPath = resolve(values.config ?? 'addon.config.json');
  const target = environment(values.env, '--env');
  const host = hostUrl(values.host, env);
  const bundlePath = resolve(values.bundle ?? 'dist/addon.js');
  const bundle = await readFile(bundlePath, 'utf8').catch(() => {
    throw new UsageError(`cannot read the add-on bundle ${bundlePath}; build the add-on first or pass --bundle`);
  });
  const auth = registryAuth(host, io, { env, interactive: true, openBrowser: !values['no-browser'] });
  const options = { host, configPath, target, env, integrator: values.integrator };
  const config =
    target === 'development' ? await prepareDevelopmentPush(io, auth, options) : await loadProjectConfig(options);
  if (!config) return 1;
  const outcome = await pushAddon(io, auth, { host, target, config, bundle });
  if (outcome.line) io.out(outcome.line);
  if (outcome.preview) io.out(`see it at ${outcome.preview}`);
  return outcome.code;
}

/** `addon promote`: resolves with the exit code. */
async function promote(rest: string[], io: CommandIo, env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parse(rest, ADDON_PROMOTE_FORM.options, ADDON_PROMOTE_FORM.positionals.length);
  const configPath = resolve(values.config ?? 'addon.config.json');
  const from = environment(positionals[0], '<from>');
  const to = environment(positionals[1], '<to>');
  const host = hostUrl(values.host, env);
  const config = await loadProjectConfig({ host, configPath, target: to, env });
  const auth = registryAuth(host, io, { env, interactive: true, openBrowser: !values['no-browser'] });
  const id = config.oauth_application_id;
  const url = `${host}/addons/v1/applications/${id}/environments/${to}/promotions`;
  const answer = await registryRequest(auth, url, 'POST', { from, config });
  const a = answer.payload?.data?.attributes;
  if (answer.status !== 201 || !a) {
    printRefusal(io, answer);
    return 1;
  }
  io.out(
    `promoted add-on ${id} from ${from} to ${to}: version ${String(a.version)} (bundle sha256 ${String(a.bundle_sha256)})`,
  );
  return 0;
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
  try {
    return action === ADDON_PUSH_FORM.action ? await push(rest, io, env) : await promote(rest, io, env);
  } catch (error) {
    if (error instanceof SignInError || error instanceof HostUnreachableError) {
      io.err(error.message);
      return 1;
    }
    if (!(error instanceof ConfigFileError)) throw error;
    printConfigFileError(io, error);
    return 1;
  }
}
