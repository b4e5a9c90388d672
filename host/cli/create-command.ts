/**
 * `addon-kit create integrator <dir>` and `addon-kit create addon <dir>`: write a new project outside this
 * repository (an empty or new folder), then print the next steps.
 * @example addon-kit create addon ../my-addon
 * @example addon-kit create integrator ../my-integrator
 */
import { mkdir, readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse, usageLine, UsageError } from './args.ts';
import { CREATE_FORM } from './command-specs.ts';
import type { PackageSource } from './create/local-packages.ts';
import { scaffoldAddon } from './create/scaffold-addon.ts';
import { scaffoldIntegrator } from './create/scaffold-integrator.ts';
import type { CommandIo } from './io.ts';

const CREATE_USAGE = usageLine('create', CREATE_FORM);

/** Runs `create`; resolves with the exit code. */
export async function createCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parse(argv, CREATE_FORM.options, CREATE_FORM.positionals.length);
  const [kind, target] = positionals;
  if (kind !== 'integrator' && kind !== 'addon') throw new UsageError(`create what? ${CREATE_USAGE}`);
  if (!target) throw new UsageError(`<dir> is required: ${CREATE_USAGE}`);
  if (values['from-registry'] && values.packages)
    throw new UsageError('--from-registry and --packages exclude each other');
  const dir = resolve(target);
  const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new UsageError(`cannot use ${dir}: ${error.message}`);
  });
  if (existing.length > 0) throw new UsageError(`${dir} is not empty; choose a new or empty folder`);
  await mkdir(dir, { recursive: true });
  const source: PackageSource = values['from-registry']
    ? { kind: 'registry' }
    : values.packages
      ? { kind: 'folder', dir: resolve(values.packages) }
      : { kind: 'pack' };

  io.err(`addon-kit create ${kind}: writing ${dir}`);
  if (kind === 'integrator') await scaffoldIntegrator(dir, io.err);
  else await scaffoldAddon(dir, source, io.err);
  io.out(`created ${kind === 'integrator' ? 'an integrator' : 'an add-on'} in ${dir}; next:`);
  io.out(`  cd ${target}`);
  io.out('  npm install');
  io.out('  npm test');
  if (kind === 'integrator') {
    io.out('  npm start            # on http://localhost:4200, for the development add-ons of http://localhost:4000');
    io.out('then, in an add-on project: npm run dev -- --integrator http://localhost:4200');
  } else {
    io.out(
      '  npm run dev          # signs in to the host, registers the add-on, builds, pushes, prints where to see it',
    );
  }
  return 0;
}
