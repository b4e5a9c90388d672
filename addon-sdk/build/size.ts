/** Gzip sizes of the built bundles against their budgets (`npm run size:addon-sdk` after a build). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatSizeReport, measureSize, type SizeReport } from '../vite/size-report.ts';
import { DEFAULT_BUNDLE_DIR, SDK_BUNDLES, type BundleSpec } from './bundles.ts';

/** Measures the SDK bundles (default: every one) in `dir`. */
export async function measureBundles(
  dir: string = DEFAULT_BUNDLE_DIR,
  bundles: readonly BundleSpec[] = SDK_BUNDLES,
): Promise<SizeReport[]> {
  return Promise.all(
    bundles.map(async ({ file, budget }) => measureSize(file, await readFile(join(dir, file)), budget)),
  );
}

/** Prints a size table; false when a bundle is over budget. */
export async function printSizes(dir: string = DEFAULT_BUNDLE_DIR): Promise<boolean> {
  const sizes = await measureBundles(dir);
  for (const size of sizes) console.log(formatSizeReport(size, 26));
  return sizes.every((s) => s.ok);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = (await printSizes()) ? 0 : 1;
}
