/** Builds the SDK's browser bundles with vite's build API (used by the CLI script and by tests). */
import { basename, dirname, join } from 'node:path';
import { build, defaultClientConditions } from 'vite';
import { buildAddon } from '../vite/build-addon.ts';
import { DEFAULT_BUNDLE_DIR, SDK_BUNDLES, type BundleSpec } from './bundles.ts';

/** Builds `bundles` (default: all SDK bundles) into `outDir`; returns the output directory. */
export async function buildAddonSdk(options: { outDir?: string; bundles?: BundleSpec[] } = {}): Promise<string> {
  const outDir = options.outDir ?? DEFAULT_BUNDLE_DIR;
  // One build per bundle: an IIFE (classic script) cannot have several entries.
  for (const bundle of options.bundles ?? SDK_BUNDLES) {
    // Add-ons take the one add-on build there is; budgets are checked by measureBundles (size.ts).
    if (bundle.format === 'addon') {
      await buildAddon({ entry: bundle.entry, outFile: join(outDir, bundle.file), root: dirname(bundle.entry) });
    } else {
      await buildBundle(bundle, bundle.format, outDir);
    }
  }
  return outDir;
}

async function buildBundle(bundle: BundleSpec, format: 'es' | 'iife', outDir: string): Promise<void> {
  await build({
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    root: dirname(bundle.entry),
    define: { 'process.env.NODE_ENV': '"production"' },
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    // From source (the repository), package names resolve to the workspaces' TypeScript sources.
    ...(import.meta.url.endsWith('.ts') ? { resolve: { conditions: ['source', ...defaultClientConditions] } } : {}),
    build: {
      outDir: join(outDir, dirname(bundle.file)),
      emptyOutDir: false,
      minify: true,
      sourcemap: false,
      target: 'es2022',
      reportCompressedSize: false,
      copyPublicDir: false,
      lib: {
        entry: bundle.entry,
        formats: [format],
        name: 'addonKit',
        fileName: () => basename(bundle.file),
      },
    },
  });
}
