/**
 * `addon-kit addon dev`: builds and pushes a development version, then watches the entry's folder and the config
 * and, on every change, rebuilds and pushes again — one line per rebuild. A build error is printed and the watch
 * goes on. Each push registers a new version whose bundle is served by its content hash, so the next mount runs
 * the new code while an add-on already running keeps the script it loaded.
 * @example addon-kit addon dev --entry src/index.tsx --host http://localhost:4000
 */
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { buildAddon } from '@addon-kit/sdk/vite';
import { AddonConfigError } from '../addons/index.ts';
import { buildSettings, sizeLine } from './addon-build-options.ts';
import { pushAddon } from './addon-command.ts';
import { parse, UsageError } from './args.ts';
import { ADDON_DEV_FORM } from './command-specs.ts';
import type { CommandIo } from './io.ts';

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
  const host = (values.host ?? env.ADDON_KIT_BASE_URL ?? 'http://localhost:4000').replace(/\/+$/, '');
  const sourceDir = dirname(settings.entry);

  /** One build and push; never throws, so the watch goes on after any failure. */
  const cycle = async (reason: string): Promise<void> => {
    let result;
    try {
      result = await buildAddon(settings);
    } catch (error) {
      io.err(`${reason}: build failed, still watching: ${(error as Error).message.split('\n')[0]}`);
      return;
    }
    try {
      const lines: string[] = [];
      const code = await pushAddon(
        { out: (l) => lines.push(l), err: io.err },
        { host, configPath, target: 'development', bundle: await readFile(result.file, 'utf8'), env },
      );
      if (code === 0) io.out(`${reason}: built ${sizeLine(result)} → ${lines.join(' ')}`);
    } catch (error) {
      if (error instanceof AddonConfigError)
        io.err(`${reason}: ${configPath} is not a valid add-on config, still watching: ${error.problems.join('; ')}`);
      else if (error instanceof UsageError) throw error;
      else io.err(`${reason}: push failed, still watching: ${(error as Error).message}`);
    }
  };

  await cycle('start');
  io.err(`addon-kit addon dev: watching ${sourceDir} and ${configPath} (Ctrl-C stops)`);

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let changed = new Set<string>();
  const schedule = (file: string) => {
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed].join(', ');
      changed = new Set();
      // One build at a time: a change during a build rebuilds after it.
      running = running.then(() => cycle(`changed ${files}`));
    }, SETTLE_MS);
  };
  const outDir = dirname(settings.outFile);
  const sources = watch(sourceDir, { recursive: true }, (_event, name) => {
    const file = resolve(sourceDir, String(name ?? ''));
    // The build's own output never triggers a build (when it is written inside the watched folder).
    if (!file.startsWith(`${outDir}/`)) schedule(String(name ?? sourceDir));
  });
  const config = watch(dirname(configPath), (_event, name) => {
    if (name && resolve(dirname(configPath), String(name)) === configPath) schedule(String(name));
  });

  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  clearTimeout(timer);
  sources.close();
  config.close();
  await running;
  return 0;
}
