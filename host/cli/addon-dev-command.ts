/**
 * `addon-kit addon dev`: the add-on author's whole loop against a running host. It signs the CLI in when it has no
 * credentials for the host, creates the add-on's OAuth application on the first run (remembered in
 * `.addon-kit.json`), builds, pushes a development version, prints the page where the add-on is mounted, then
 * watches the entry's folder and the config: every change rebuilds and pushes again, one line per rebuild. A build
 * error prints its file, line, column and code frame and the watch goes on; a bundle and config unchanged since the
 * live version add no version. The watcher (chokidar) follows files replaced by a rename (editors' atomic saves),
 * added, deleted and created again.
 * @example addon-kit addon dev
 * @example addon-kit addon dev --integrator http://localhost:4200
 */
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { buildAddon } from '@addon-kit/sdk/vite';
import { watch } from 'chokidar';
import { prepareDevelopmentPush } from './addon-application.ts';
import { buildSettings, sizeLine } from './addon-build-options.ts';
import { ConfigFileError, printConfigFileError } from './addon-config-file.ts';
import { pushAddon } from './addon-push.ts';
import { parse, UsageError } from './args.ts';
import { registryAuth } from './auth/registry-auth.ts';
import { SignInError } from './auth/sign-in.ts';
import { formatBuildError } from './build-error.ts';
import { ADDON_DEV_FORM } from './command-specs.ts';
import { hostUrl } from './host-url.ts';
import type { CommandIo } from './io.ts';
import { HostUnreachableError } from './registry-client.ts';

/** Changes closer together than this are one rebuild (editors write a file in several steps). */
const SETTLE_MS = 150;

/** Runs `addon dev` until SIGINT/SIGTERM (or `signal`); resolves with the exit code. */
export async function addonDevCommand(
  argv: string[],
  io: CommandIo,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<number> {
  const { values } = parse(argv, ADDON_DEV_FORM.options);
  const settings = buildSettings(values);
  const configPath = resolve(values.config ?? 'addon.config.json');
  const host = hostUrl(values.host, env);
  const auth = registryAuth(host, io, { env, interactive: true, openBrowser: !values['no-browser'] });
  const project = { host, configPath, target: 'development' as const, env, integrator: values.integrator };
  const session: DevSession = { io, settings, auth, project, shownPreview: false };
  const cycle = (reason: string) => buildAndPush(session, reason);

  try {
    await cycle('start');
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`addon-kit addon dev: ${error.message}`);
    return 2;
  }
  const watching = await watchAndRebuild(settings, configPath, io, cycle);
  await untilStopped(signal);
  await watching.close();
  return 0;
}

/** What every build-and-push of one `addon dev` run shares. */
interface DevSession {
  io: CommandIo;
  settings: ReturnType<typeof buildSettings>;
  auth: ReturnType<typeof registryAuth>;
  project: Parameters<typeof prepareDevelopmentPush>[2];
  /** The preview page is printed once, after the first push that has one. */
  shownPreview: boolean;
}

/** One build and push; false when it could not get as far as a push. Never throws but for usage mistakes. */
async function buildAndPush(session: DevSession, reason: string): Promise<boolean> {
  const { io, settings, auth, project } = session;
  let result;
  try {
    result = await buildAddon(settings);
  } catch (error) {
    io.err(`${reason}: build failed, still watching:`);
    for (const line of await formatBuildError(error)) io.err(`  ${line}`);
    return false;
  }
  try {
    const config = await prepareDevelopmentPush(io, auth, project);
    if (!config) return false;
    const bundle = await readFile(result.file, 'utf8');
    const outcome = await pushAddon(io, auth, { host: project.host, target: 'development', config, bundle });
    if (outcome.code !== 0) return false;
    io.out(`${reason}: built ${sizeLine(result)} → ${outcome.line}`);
    if (outcome.preview && !session.shownPreview) {
      session.shownPreview = true;
      io.out(`open ${outcome.preview} to see it (reload the page to mount a new version)`);
    }
    return true;
  } catch (error) {
    reportPushError(io, reason, error);
    return false;
  }
}

/** A push that failed: said on stderr, the watch goes on (a usage mistake is rethrown). */
function reportPushError(io: CommandIo, reason: string, error: unknown): void {
  if (error instanceof ConfigFileError) printConfigFileError(io, error);
  else if (error instanceof UsageError) throw error;
  else if (error instanceof SignInError || error instanceof HostUnreachableError) io.err(`${reason}: ${error.message}`);
  else io.err(`${reason}: push failed, still watching: ${(error as Error).message}`);
}

/**
 * Watches the entry's folder and the config; changes settled for SETTLE_MS are one rebuild, one at a time.
 * `close` stops the watch and waits for a rebuild under way.
 */
async function watchAndRebuild(
  settings: ReturnType<typeof buildSettings>,
  configPath: string,
  io: CommandIo,
  cycle: (reason: string) => Promise<boolean>,
): Promise<{ close(): Promise<void> }> {
  const sourceDir = dirname(settings.entry);
  const outDir = dirname(settings.outFile);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let changed = new Set<string>();
  const schedule = (file: string) => {
    // The build's own output never triggers a build (when it is written inside the watched folder).
    if (file === outDir || file.startsWith(`${outDir}${sep}`)) return;
    changed.add(relative(sourceDir, file) || file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed].map((f) => (f.startsWith('..') ? relative(process.cwd(), resolve(sourceDir, f)) : f));
      changed = new Set();
      // One build at a time: a change during a build rebuilds after it.
      running = running.then(() => cycle(`changed ${files.join(', ')}`).catch((e: Error) => io.err(e.message)));
    }, SETTLE_MS);
  };
  const watcher = watch([sourceDir, configPath], { ignoreInitial: true, atomic: true });
  watcher.on('all', (_event, file) => schedule(resolve(file)));
  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  io.err(
    `addon-kit addon dev: watching ${relative(process.cwd(), sourceDir) || '.'} and ` +
      `${relative(process.cwd(), configPath)} (Ctrl-C stops)`,
  );
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}

/** Resolves on SIGINT, SIGTERM or `signal`'s abort (already aborted: at once). */
function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolveStop) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // Asked to stop while starting: an abort listener added now would never be called.
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}
