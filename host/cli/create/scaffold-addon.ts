/**
 * `addon-kit create addon <dir>`: an add-on project — `src/` with a sample using the SDK (components and both
 * fetches), a test using the SDK's testing kit, `addon.config.json`, and scripts `build`, `dev`, `push` and `test`
 * over this CLI. The addon-kit packages come from `vendor/*.tgz` (or the registry, see local-packages.ts).
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyTree } from './copy-tree.ts';
import { packageDir, packageSpecs, readManifest, type PackageSource } from './local-packages.ts';
import { projectName } from './scaffold-integrator.ts';

/** The add-on template's files (shipped in the host package as they are, also when this runs from `dist/`). */
const TEMPLATE_DIR = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? './addon-template/' : '../../../cli/create/addon-template/',
    import.meta.url,
  ),
);

/** Writes the add-on project into the (empty) folder `dir`. */
export async function scaffoldAddon(dir: string, source: PackageSource, log: (line: string) => void): Promise<void> {
  log(`  copying the add-on template from ${TEMPLATE_DIR}`);
  await copyTree(TEMPLATE_DIR, dir);
  // npm pack leaves out files named .gitignore, so the template ships it without the dot.
  await rename(join(dir, 'gitignore'), join(dir, '.gitignore'));
  // The host's own dependency on the template integrator must resolve from vendor/ too when packing.
  const names =
    source.kind === 'registry'
      ? (['@addon-kit/sdk', '@addon-kit/host'] as const)
      : (['@addon-kit/sdk', '@addon-kit/integrator-template', '@addon-kit/host'] as const);
  const specs = await packageSpecs([...names], dir, source, log);
  const sdk = await readManifest(packageDir('@addon-kit/sdk'));
  const template = await readManifest(packageDir('@addon-kit/integrator-template'));
  const range = (name: string, from: Record<string, string> | undefined) => {
    const found = from?.[name];
    if (!found) throw new Error(`no version range for ${name}`);
    return found;
  };
  const pkg = {
    name: projectName(dir),
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: {
      build: 'addon-kit addon build',
      dev: 'addon-kit addon dev',
      push: 'addon-kit addon push --env development',
      test: 'tsc -p tsconfig.json && vitest run',
    },
    devDependencies: {
      ...specs,
      '@types/node': range('@types/node', template.devDependencies),
      'playwright-core': range('playwright-core', template.devDependencies),
      preact: range('preact', sdk.dependencies),
      typescript: range('typescript', template.devDependencies),
      vite: range('vite', sdk.dependencies),
      vitest: range('vitest', template.devDependencies),
    },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  log('  wrote package.json');
}
