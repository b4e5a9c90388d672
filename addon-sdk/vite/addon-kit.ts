/**
 * The vite preset for add-ons: one classic script (IIFE) for the sandbox's worker, the SDK and preact bundled
 * in, preact's automatic JSX runtime, minified for es2022, and its gzip size checked against a budget.
 */
import { basename, dirname, resolve } from 'node:path';
import { defaultClientConditions, type Plugin } from 'vite';
import { refuseExtraFiles } from './refuse-extra-files.ts';
import { ADDON_BUDGET_BYTES, formatSizeReport, measureSize, type SizeReport } from './size-report.ts';

/** Options of {@link addonKit}. */
export interface AddonKitOptions {
  /** The add-on's entry module, relative to the vite root (e.g. `src/index.tsx`). */
  entry: string;
  /** Where the script goes, relative to the vite root; default `dist/addon.js` (what `addon push` sends). */
  outFile?: string;
  /** Gzip budget in bytes; default {@link ADDON_BUDGET_BYTES} (25 kB). */
  budget?: number;
  /**
   * Over the budget: `'error'` (default) fails the build after writing the script (so it can be inspected);
   * `'warn'` only warns.
   */
  overBudget?: 'error' | 'warn';
  /**
   * Receives the size report of every build instead of the plugin logging it or failing on the budget
   * (used by {@link buildAddon}, whose caller decides).
   */
  onReport?: (report: AddonBuildResult) => void;
}

/** What a build produced: the script's absolute path, its size, gzip size and budget, and whether it fits. */
export interface AddonBuildResult extends SizeReport {
  budget: number;
}

/** The comment vite appends for `sourcemap: 'inline'`. */
const INLINE_SOURCE_MAP = /\n?\/\/# sourceMappingURL=data:[^\n]*\s*$/;

/** Default output file of an add-on build (the default `--bundle` of `addon-kit addon push`). */
export const DEFAULT_ADDON_OUT_FILE = 'dist/addon.js';

/**
 * The add-on build as a vite plugin for an author's own `vite.config.ts`; `vite build` then writes the one
 * script the sandbox loads and prints its gzip size against the budget (over it: the build fails).
 * In `--mode development` the script carries an inline source map (not counted in the size).
 *
 * @example
 * ```ts
 * // vite.config.ts
 * import { defineConfig } from 'vite';
 * import { addonKit } from '@addon-kit/sdk/vite';
 *
 * export default defineConfig({
 *   plugins: [addonKit({ entry: 'src/index.tsx' })],
 * });
 * ```
 */
export function addonKit(options: AddonKitOptions): Plugin[] {
  const outFile = options.outFile ?? DEFAULT_ADDON_OUT_FILE;
  const budget = options.budget ?? ADDON_BUDGET_BYTES;
  const fileName = basename(outFile);
  let report: AddonBuildResult | undefined;

  const preset: Plugin = {
    name: 'addon-kit',
    apply: 'build',
    config(_user, env) {
      const development = env.mode === 'development';
      return {
        // A public directory would be copied beside the script: an add-on is the script alone.
        publicDir: false,
        define: { 'process.env.NODE_ENV': JSON.stringify(development ? 'development' : 'production') },
        oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
        // The add-on's own `preact/hooks` must be the copy the SDK renders with, or hooks break.
        // In the addon-kit repository (this module running from source) the SDK's package name resolves to its
        // TypeScript sources, as everywhere there; installed, to its built dist/.
        resolve: {
          dedupe: ['preact'],
          ...(import.meta.url.endsWith('.ts') ? { conditions: ['source', ...defaultClientConditions] } : {}),
        },
        build: {
          outDir: dirname(outFile),
          emptyOutDir: false,
          copyPublicDir: false,
          minify: true,
          target: 'es2022',
          sourcemap: development ? 'inline' : false,
          cssCodeSplit: false,
          reportCompressedSize: false,
          // An IIFE cannot import chunks: dynamic imports are inlined.
          rolldownOptions: { output: { codeSplitting: false } },
          lib: { entry: options.entry, formats: ['iife'], name: 'addonKitAddon', fileName: () => fileName },
        },
      };
    },
    generateBundle(output, bundle) {
      const chunk = bundle[fileName];
      if (chunk?.type !== 'chunk') return; // nothing to measure: buildAddon reports a missing script
      const file = resolve(output.dir ?? dirname(outFile), fileName);
      // The budget is for the code the host downloads in production: a development source map is not counted.
      report = { ...measureSize(file, chunk.code.replace(INLINE_SOURCE_MAP, ''), budget), budget };
    },
    writeBundle() {
      if (!report) return;
      const done = report;
      report = undefined;
      if (options.onReport) return options.onReport(done);
      const line = formatSizeReport({ ...done, file: outFile });
      if (done.ok) this.info(line);
      else if (options.overBudget === 'warn') this.warn(`${line} (gzip budget exceeded)`);
      else this.error(`${line}: the add-on is over its gzip budget of ${budget} bytes; trim it or raise the budget.`);
    },
  };
  return [preset, refuseExtraFiles(fileName)];
}
