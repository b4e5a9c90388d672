/**
 * The vite preset for add-ons: `addonKit()` configures vite to build an add-on into the single classic script
 * (IIFE) the sandbox's worker loads, and `buildAddon()` runs that build and reports the gzip size against a budget.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';

/** Default gzip budget of an add-on bundle: the worker SDK's budget. */
export const ADDON_BUDGET_BYTES = 25 * 1024;
/** Where the bundle goes unless told otherwise. */
export const DEFAULT_ADDON_OUT_FILE = 'dist/addon.js';

/** Options of the preset. */
export interface AddonKitOptions {
  /** The add-on's entry module (e.g. `src/index.tsx`). */
  entry: string;
  outFile?: string;
}

/** One bundle's measured size. */
export interface SizeReport {
  file: string;
  bytes: number;
  gzip: number;
  budget?: number;
  ok: boolean;
}

/** The built add-on. */
export interface AddonBuildResult extends SizeReport {
  budget: number;
}

/** Options of `buildAddon`. */
export interface AddonBuildOptions {
  entry: string;
  outFile?: string;
  budget?: number;
  mode?: 'production' | 'development';
  root?: string;
}

/** A vite plugin that builds `entry` as one minified classic script with preact's JSX runtime. */
export function addonKit(options: AddonKitOptions): Plugin[] {
  const outFile = resolve(options.outFile ?? DEFAULT_ADDON_OUT_FILE);
  return [
    {
      name: 'addon-kit',
      config: () => ({
        publicDir: false,
        define: { 'process.env.NODE_ENV': '"production"' },
        oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
        build: {
          outDir: dirname(outFile),
          emptyOutDir: false,
          minify: true,
          sourcemap: false,
          target: 'es2022',
          reportCompressedSize: false,
          copyPublicDir: false,
          lib: { entry: resolve(options.entry), formats: ['iife'], name: 'addon', fileName: () => basename(outFile) },
        },
      }),
    },
  ];
}

/** One line: `addon.js  68.9 kB  gzip 23.5 kB / budget 25.0 kB ok`. */
export function formatSizeReport(report: SizeReport, width = 0): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  const budget = report.budget === undefined ? '' : ` / budget ${kb(report.budget)} ${report.ok ? 'ok' : 'OVER'}`;
  return `${report.file.padEnd(width)} ${kb(report.bytes).padStart(9)}  gzip ${kb(report.gzip).padStart(8)}${budget}`;
}

/**
 * Builds an add-on into one classic script and measures it.
 * @example const { gzip, ok } = await buildAddon({ entry: 'src/index.tsx', outFile: 'dist/addon.js' });
 */
export async function buildAddon(options: AddonBuildOptions): Promise<AddonBuildResult> {
  const root = options.root ?? process.cwd();
  const file = resolve(root, options.outFile ?? DEFAULT_ADDON_OUT_FILE);
  await mkdir(dirname(file), { recursive: true });
  await build({ configFile: false, logLevel: 'silent', root, plugins: addonKit({ entry: resolve(root, options.entry), outFile: file }) });
  const content = await readFile(file);
  const gzip = gzipSync(content, { level: 9 }).byteLength;
  const budget = options.budget ?? ADDON_BUDGET_BYTES;
  return { file, bytes: content.byteLength, gzip, budget, ok: gzip <= budget };
}
