/**
 * `addon-kit create integrator <dir>`: a copy of the template integrator as a project of its own — its sources,
 * migrations and tests, and a package.json with the template's real dependency ranges. It depends on no
 * addon-kit package: the integrator is the integrator's own service.
 */
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { copyTree } from './copy-tree.ts';
import { packageDir, readManifest } from './local-packages.ts';

/** Writes the integrator project into the (empty) folder `dir`. */
export async function scaffoldIntegrator(dir: string, log: (line: string) => void): Promise<void> {
  const template = packageDir('@addon-kit/integrator-template');
  const manifest = await readManifest(template);
  log(`  copying the template integrator from ${template}`);
  await copyTree(template, dir);
  const pkg = {
    name: projectName(dir),
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: { start: 'tsx main.ts', test: 'tsc -p tsconfig.json && vitest run', typecheck: 'tsc -p tsconfig.json' },
    dependencies: manifest.dependencies,
    devDependencies: manifest.devDependencies,
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await writeFile(join(dir, '.gitignore'), 'node_modules/\n.addon-kit/\n');
  log('  wrote package.json and .gitignore');
}

/** An npm package name from a folder name. */
export function projectName(dir: string): string {
  return (
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+/, '') || 'my-project'
  );
}
