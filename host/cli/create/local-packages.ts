/**
 * How a scaffold gets this project's own packages: `vendor/*.tgz` packed from the packages installed beside this
 * CLI (the workspaces in the repository, built on the way; the installed packages otherwise), so `npm install`
 * in the new project needs no registry for them — or, with `--from-registry`, the published `^version` ranges.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** The packages a scaffold may depend on. */
export type AddonKitPackage = '@addon-kit/sdk' | '@addon-kit/integrator-template' | '@addon-kit/host';

/** A package.json as far as scaffolds read it. */
export interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Where an installed package lives (a workspace folder in the repository). */
export function packageDir(name: AddonKitPackage): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/** A package's manifest. */
export async function readManifest(dir: string): Promise<PackageManifest> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** npm pack's file name for a package: `@addon-kit/sdk@0.1.0` → `addon-kit-sdk-0.1.0.tgz`. */
export function tarballName(manifest: PackageManifest): string {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}

/** How `create` finds the packages: packed here, copied from a folder of tarballs, or from the registry. */
export type PackageSource = { kind: 'pack' } | { kind: 'folder'; dir: string } | { kind: 'registry' };

/**
 * The dependency specs of `names` for a project in `projectDir`: `file:vendor/<tarball>` (packing or copying
 * the tarballs into `<projectDir>/vendor`) or `^version` from the registry.
 */
export async function packageSpecs(
  names: AddonKitPackage[],
  projectDir: string,
  source: PackageSource,
  log: (line: string) => void,
): Promise<Record<string, string>> {
  const vendor = join(projectDir, 'vendor');
  if (source.kind !== 'registry') await mkdir(vendor, { recursive: true });
  // Packing a workspace builds it (tsc), the slowest step of `create addon`: the packages the host's build reads
  // (their dist/ types) are built together, then the host.
  const spec = async (name: AddonKitPackage): Promise<[string, string]> => {
    const dir = packageDir(name);
    const manifest = await readManifest(dir);
    if (source.kind === 'registry') return [name, `^${manifest.version}`];
    const file = tarballName(manifest);
    if (source.kind === 'folder') {
      const found = (await readdir(source.dir)).find((f) => f === file);
      if (!found) throw new Error(`no ${file} in ${source.dir}`);
      await copyFile(join(source.dir, found), join(vendor, file));
      log(`  copied ${file} from ${source.dir}`);
    } else {
      // A workspace (TypeScript sources, a build config) is built by npm pack's prepack; an installed package is
      // packed as it is.
      const workspace = existsSync(join(dir, 'tsconfig.build.json'));
      log(`  packing ${name}@${manifest.version}${workspace ? ' (building it first)' : ''}…`);
      await promisify(execFile)(
        'npm',
        ['pack', dir, '--pack-destination', vendor, '--silent', ...(workspace ? [] : ['--ignore-scripts'])],
        { cwd: projectDir, maxBuffer: 16 * 1024 * 1024 },
      );
    }
    return [name, `file:vendor/${file}`];
  };
  const first = await Promise.all(names.filter((n) => n !== '@addon-kit/host').map(spec));
  const last = names.includes('@addon-kit/host') ? [await spec('@addon-kit/host')] : [];
  const specs: Record<string, string> = Object.fromEntries(
    names.map((n) => [...first, ...last].find(([name]) => name === n)!),
  );
  return specs;
}
