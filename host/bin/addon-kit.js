#!/usr/bin/env node
// The addon-kit CLI. In the repository (TypeScript sources present) it runs them through tsx, resolving the
// workspace packages to their sources (the `source` export condition); installed from a package, the built dist.
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const source = new URL('../cli/main.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  const addSourceCondition =
    'export async function resolve(specifier, context, next) {' +
    " return next(specifier, { ...context, conditions: [...context.conditions, 'source'] }); }";
  register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
  const tsx = await import('tsx/esm/api');
  // The package's tsconfig, named explicitly: tsx otherwise looks for one in the working directory, and run from
  // anywhere else the .tsx pages would compile for React instead of preact ("React is not defined").
  tsx.register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  cli = await import(source.href);
} else {
  cli = await import('../dist/cli/main.js');
}
process.exitCode = await cli.main(process.argv.slice(2));
