/** Builds what the demo serves with vite: the host embedder, the sandbox bootstrap and the sample add-on. */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddonSdk } from '../../addon-sdk/build/build.ts';
import { HOST_BUNDLE, SAMPLE_ADDON_BUNDLE, SANDBOX_BUNDLE } from '../../addon-sdk/build/bundles.ts';

const BUNDLES = [HOST_BUNDLE, SANDBOX_BUNDLE, SAMPLE_ADDON_BUNDLE];
const SDK_DIR = fileURLToPath(new URL('../../addon-sdk/', import.meta.url));
const STAMP = 'sources.sha256';

/** SHA-256 over every file of the SDK's sources (paths and contents) and the installed vite version. */
async function sourceDigest(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(SDK_DIR, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) hash.update(file.slice(SDK_DIR.length)).update('\0').update(await readFile(file)).update('\0');
  const vite = JSON.parse(await readFile(fileURLToPath(new URL('../../node_modules/vite/package.json', import.meta.url)), 'utf8')) as { version: string };
  return hash.update(vite.version).digest('hex');
}

/**
 * Builds into `outDir` when the SDK's sources changed since the last build (a restart with the same
 * sources reuses the bundles), so the served code always matches the sources; returns the sample add-on.
 */
export async function buildDemoBundles(outDir: string, log: (line: string) => void): Promise<{ sampleBundle: string }> {
  const digest = await sourceDigest();
  const built = await readFile(join(outDir, STAMP), 'utf8').catch(() => '');
  const present = await Promise.all(BUNDLES.map((b) => readFile(join(outDir, b.file)).then(() => true, () => false)));
  if (built.trim() === digest && present.every(Boolean)) {
    log(`addon-kit: add-on SDK bundles in ${outDir} are up to date`);
  } else {
    const started = Date.now();
    log(`addon-kit: building the add-on SDK bundles and the sample add-on into ${outDir}…`);
    await buildAddonSdk({ outDir, bundles: BUNDLES });
    await writeFile(join(outDir, STAMP), `${digest}\n`);
    log(`addon-kit: built ${HOST_BUNDLE.file}, ${SANDBOX_BUNDLE.file} and ${SAMPLE_ADDON_BUNDLE.file} in ${Date.now() - started} ms`);
  }
  return { sampleBundle: await readFile(join(outDir, SAMPLE_ADDON_BUNDLE.file), 'utf8') };
}
