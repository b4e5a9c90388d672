/**
 * Builds the add-on SDK's browser bundles a host serves (the embedder `host.js`, the sandbox bootstrap) and,
 * for the demo, the sample add-on — with vite, from the installed `@addon-kit/sdk` (its TypeScript sources in
 * the repository, its built `dist/` when installed).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HOST_BUNDLE, SANDBOX_BUNDLE, type BundleSpec } from '@addon-kit/sdk/server';

/** What every host serves: the embedder and the sandbox bootstrap. */
export const RUNTIME_BUNDLES: BundleSpec[] = [HOST_BUNDLE, SANDBOX_BUNDLE];
const STAMP = 'sources.sha256';

/**
 * SHA-256 over every file the bundles are built from — the SDK package's files (paths and contents, without
 * node_modules) — and the vite version. In the repository the SDK is a workspace built from its TypeScript sources,
 * so its `dist/` is left out: packing the packages (`create addon` does) rewrites `dist/` without changing what the
 * bundles are built from, and must not make the next start rebuild them.
 */
async function sourceDigest(): Promise<string> {
  const require = createRequire(import.meta.url);
  const sdkDir = dirname(require.resolve('@addon-kit/sdk/package.json'));
  const workspace = existsSync(join(sdkDir, 'tsconfig.build.json'));
  const skipped = (path: string) => {
    const parts = path.slice(sdkDir.length).split(/[\\/]/);
    return parts.includes('node_modules') || (workspace && parts[1] === 'dist');
  };
  const hash = createHash('sha256');
  const files = (await readdir(sdkDir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && !skipped(join(e.parentPath, e.name)))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files)
    hash
      .update(file.slice(sdkDir.length))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  // The version from its package.json: importing vite itself took a second or two of every restart.
  const { version } = require('vite/package.json') as { version: string };
  return hash.update(version).digest('hex');
}

/**
 * Builds `bundles` into `outDir` when the SDK changed since the last build (a restart with the same SDK reuses
 * them), so the served code always matches the installed SDK.
 */
export async function buildSdkBundles(
  outDir: string,
  bundles: BundleSpec[],
  log: (line: string) => void,
): Promise<void> {
  const digest = await sourceDigest();
  const built = await readFile(join(outDir, STAMP), 'utf8').catch(() => '');
  const present = await Promise.all(
    bundles.map((b) =>
      readFile(join(outDir, b.file)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (built.trim() === digest && present.every(Boolean)) {
    log(`addon-kit: add-on SDK bundles in ${outDir} are up to date`);
    return;
  }
  const started = Date.now();
  log(`addon-kit: building ${bundles.map((b) => b.file).join(', ')} into ${outDir}…`);
  // vite loads only when something is to be built.
  const { buildAddonSdk } = await import('@addon-kit/sdk/build');
  await buildAddonSdk({ outDir, bundles });
  await writeFile(join(outDir, STAMP), `${digest}\n`);
  log(`addon-kit: built ${bundles.map((b) => b.file).join(', ')} in ${Date.now() - started} ms`);
}
