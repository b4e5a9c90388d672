/**
 * buildAddon: the add-on build as a function (what `addon-kit addon build` and `addon dev` call), with the
 * {@link addonKit} plugin doing the work, once or watching the sources.
 */
import { resolve } from 'node:path';
import { build, createLogger, type InlineConfig, type Logger } from 'vite';
import { addonKit, DEFAULT_ADDON_OUT_FILE, type AddonBuildResult } from './addon-kit.ts';

/** Options of {@link buildAddon}. */
export interface AddonBuildOptions {
  /** The add-on's entry module (absolute, or relative to `root`). */
  entry: string;
  /** The script to write (absolute, or relative to `root`); default `dist/addon.js`. */
  outFile?: string;
  /** Gzip budget in bytes; default 25 kB. */
  budget?: number;
  /** `development` adds an inline source map and sets `process.env.NODE_ENV`; default `production`. */
  mode?: 'production' | 'development';
  /** The project directory (vite's root: `.env` files, module resolution); default the working directory. */
  root?: string;
}

/** Callbacks of a watching build: one call per rebuild. */
export interface AddonWatchOptions {
  /** A build finished (its size may still be over the budget: check `ok`). */
  onBuild(result: AddonBuildResult): void;
  /** A build failed (syntax error, refused import, …); the watcher keeps watching and rebuilds on the next change. */
  onError(error: Error): void;
}

/** A watching build; `close()` stops it. */
export interface AddonWatcher {
  close(): Promise<void>;
}

/** Minimal shape of the watcher vite returns in watch mode (rolldown's). */
interface RolldownLikeWatcher {
  on(
    event: 'event',
    listener: (event: { code: string; error?: Error; result?: { close(): unknown } }) => void,
  ): unknown;
  close(): Promise<void>;
}

/**
 * Builds an add-on into one classic script and measures it. Over the budget is not an exception: the result
 * says `ok: false` and the caller decides (a one-off build should exit with 1). A failed build (syntax error, a CSS or asset
 * import) rejects with vite's error, whose message names the file. vite config files are not read: the
 * preset is the whole configuration (use {@link addonKit} in a `vite.config.ts` to add plugins of your own).
 *
 * With `watch`, resolves once the first build ended (successfully or not) and rebuilds on every change,
 * reporting each build to `onBuild` or `onError`.
 *
 * @example
 * ```ts
 * import { buildAddon, formatSizeReport } from '@addon-kit/sdk/vite';
 *
 * const result = await buildAddon({ entry: 'src/index.tsx', outFile: 'dist/addon.js' });
 * console.log(formatSizeReport(result)); // …/dist/addon.js  32.5 kB  gzip 12.0 kB / budget 25.0 kB ok
 * if (!result.ok) process.exitCode = 1;
 * ```
 * @example
 * ```ts
 * import { buildAddon, formatSizeReport } from '@addon-kit/sdk/vite';
 *
 * const watcher = await buildAddon({
 *   entry: 'src/index.tsx',
 *   mode: 'development',
 *   watch: { onBuild: (r) => console.log(formatSizeReport(r)), onError: (e) => console.error(e.message) },
 * });
 * // … later
 * await watcher.close();
 * ```
 */
export function buildAddon(options: AddonBuildOptions & { watch?: undefined }): Promise<AddonBuildResult>;
export function buildAddon(options: AddonBuildOptions & { watch: AddonWatchOptions }): Promise<AddonWatcher>;
export async function buildAddon(
  options: AddonBuildOptions & { watch?: AddonWatchOptions },
): Promise<AddonBuildResult | AddonWatcher> {
  const root = resolve(options.root ?? process.cwd());
  let last: AddonBuildResult | undefined;
  const config: InlineConfig = {
    configFile: false,
    root,
    mode: options.mode ?? 'production',
    logLevel: 'warn',
    customLogger: quietLogger(),
    plugins: [
      addonKit({
        entry: resolve(root, options.entry),
        outFile: resolve(root, options.outFile ?? DEFAULT_ADDON_OUT_FILE),
        ...(options.budget === undefined ? {} : { budget: options.budget }),
        onReport: (report) => (last = report),
      }),
    ],
  };
  if (!options.watch) {
    await build(config);
    if (!last) throw new Error('addon-kit: the build wrote no add-on script');
    return last;
  }
  const watch = options.watch;
  const watcher = (await build({ ...config, build: { watch: {} } })) as unknown as RolldownLikeWatcher;
  return new Promise<AddonWatcher>((resolveStarted) => {
    const started = () => resolveStarted({ close: () => watcher.close() });
    watcher.on('event', (event) => {
      if (event.code === 'BUNDLE_END' && last) {
        const result = last;
        last = undefined;
        watch.onBuild(result);
        started();
      } else if (event.code === 'ERROR') {
        // The bundle of a failed run is not closed by vite; the watcher goes on with the next change.
        void event.result?.close();
        watch.onError(event.error ?? new Error('addon-kit: the build failed'));
        started();
      }
    });
  });
}

/** vite's logger at `warn`, without errors: a build error reaches the caller (rejection or `onError`) once. */
function quietLogger(): Logger {
  const logger = createLogger('warn');
  return { ...logger, error: () => {} };
}
