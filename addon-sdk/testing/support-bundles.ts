/**
 * The kit's own browser code, built once per process into a temporary directory: the sandbox frame's
 * bootstrap (the real one) and the test host page.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddonSdk } from '../build/build.ts';
import { SANDBOX_BUNDLE, type BundleSpec } from '../build/bundles.ts';

/** The test host page script (page/test-host.ts), served at `/test-host.js`. */
export const TEST_PAGE_BUNDLE: BundleSpec = {
  file: 'test-host.js',
  // The TypeScript source in the repository, the compiled module beside this one in an installed package's dist/.
  entry: fileURLToPath(
    new URL(import.meta.url.endsWith('.ts') ? './page/test-host.ts' : './page/test-host.js', import.meta.url),
  ),
  format: 'es',
};

let built: Promise<string> | undefined;

/** The directory holding `sandbox-bootstrap.js` and `test-host.js` (removed when the process exits). */
export function buildSupportBundles(): Promise<string> {
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-testing-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await buildAddonSdk({ outDir: dir, bundles: [SANDBOX_BUNDLE, TEST_PAGE_BUNDLE] });
    return dir;
  })();
  // A failed build is not cached: the next test tries again and reports its own error.
  built.catch(() => (built = undefined));
  return built;
}
