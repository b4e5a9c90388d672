/** Gzip sizes of the built bundles against their budgets (`npm run size:addon-sdk` after a build). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DEFAULT_BUNDLE_DIR, SDK_BUNDLES, type BundleSpec } from './bundles.ts';

/** One bundle's measured size. */
export interface BundleSize { file: string; bytes: number; gzip: number; budget?: number; ok: boolean }

/** Measures the SDK bundles (default: every one) in `dir`. */
export async function measureBundles(dir: string = DEFAULT_BUNDLE_DIR, bundles: readonly BundleSpec[] = SDK_BUNDLES): Promise<BundleSize[]> {
  return Promise.all(
    bundles.map(async ({ file, budget }) => {
      const content = await readFile(join(dir, file));
      const gzip = gzipSync(content, { level: 9 }).byteLength;
      return { file, bytes: content.byteLength, gzip, ...(budget ? { budget } : {}), ok: budget === undefined || gzip <= budget };
    }),
  );
}

/** Prints a size table; false when a bundle is over budget. */
export async function printSizes(dir: string = DEFAULT_BUNDLE_DIR): Promise<boolean> {
  const sizes = await measureBundles(dir);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  for (const s of sizes) {
    const budget = s.budget ? ` / budget ${kb(s.budget)} ${s.ok ? 'ok' : 'OVER'}` : '';
    console.log(`${s.file.padEnd(26)} ${kb(s.bytes).padStart(9)}  gzip ${kb(s.gzip).padStart(8)}${budget}`);
  }
  return sizes.every((s) => s.ok);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = (await printSizes()) ? 0 : 1;
}
