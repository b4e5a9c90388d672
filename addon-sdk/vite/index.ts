/**
 * The vite preset for add-ons: `addonKit()` configures vite to build an add-on into the single classic script
 * (IIFE) the sandbox's worker loads, and `buildAddon()` runs that build and reports the gzip size against a budget.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';

/** Options of the preset. */
export interface AddonKitOptions {
  /** The add-on's entry module (e.g. `src/index.tsx`). */
  entry: string;
  /** The built script (default `dist/addon.js`). */
  outFile?: string;
}

/** The gzip budget of an add-on bundle unless told otherwise: the worker SDK with its UI runtime fits in 25 kB. */
export const DEFAULT_ADDON_BUDGET = 40 * 1024;

/** A vite plugin that builds `entry` as one minified classic script with preact's JSX runtime. */
export function addonKit(options: AddonKitOptions): Plugin {
  const outFile = resolve(options.outFile ?? 'dist/addon.js');
  return {
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
  };
}

/** What `buildAddon` builds. */
export interface BuildAddonOptions extends AddonKitOptions {
  /** Gzip budget in bytes (default DEFAULT_ADDON_BUDGET). */
  budget?: number;
  /** The project root vite works in (default: the current directory). */
  root?: string;
}

/** The built bundle and its size. */
export interface AddonBuildResult {
  file: string;
  bytes: number;
  gzip: number;
  budget: number;
  /** False when the gzip size is over the budget. */
  ok: boolean;
}

/**
 * Builds an add-on into one classic script and measures it.
 * @example const { gzip, ok } = await buildAddon({ entry: 'src/index.tsx', outFile: 'dist/addon.js' });
 */
export async function buildAddon(options: BuildAddonOptions): Promise<AddonBuildResult> {
  const file = resolve(options.outFile ?? 'dist/addon.js');
  await mkdir(dirname(file), { recursive: true });
  await build({ configFile: false, logLevel: 'silent', root: options.root ?? process.cwd(), plugins: [addonKit({ entry: options.entry, outFile: file })] });
  const content = await readFile(file);
  const gzip = gzipSync(content, { level: 9 }).byteLength;
  const budget = options.budget ?? DEFAULT_ADDON_BUDGET;
  return { file, bytes: content.byteLength, gzip, budget, ok: gzip <= budget };
}
