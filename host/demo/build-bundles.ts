/** Builds what the demo serves with vite: the host embedder, the sandbox bootstrap and the sample add-on. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAddonSdk } from '../../addon-sdk/build/build.ts';
import { HOST_BUNDLE, SAMPLE_ADDON_BUNDLE, SANDBOX_BUNDLE } from '../../addon-sdk/build/bundles.ts';

/**
 * Builds into `outDir` on every start (well under a second), so the served code always matches the
 * sources; returns the sample add-on's classic script.
 */
export async function buildDemoBundles(outDir: string, log: (line: string) => void): Promise<{ sampleBundle: string }> {
  const started = Date.now();
  log(`addon-kit: building the add-on SDK bundles and the sample add-on into ${outDir}…`);
  await buildAddonSdk({ outDir, bundles: [HOST_BUNDLE, SANDBOX_BUNDLE, SAMPLE_ADDON_BUNDLE] });
  log(`addon-kit: built ${HOST_BUNDLE.file}, ${SANDBOX_BUNDLE.file} and ${SAMPLE_ADDON_BUNDLE.file} in ${Date.now() - started} ms`);
  return { sampleBundle: await readFile(join(outDir, SAMPLE_ADDON_BUNDLE.file), 'utf8') };
}
