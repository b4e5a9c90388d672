#!/usr/bin/env node
// The addon-kit CLI. TypeScript sources run through tsx's loader: no build step.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// The repository's tsconfig, named explicitly: tsx otherwise looks for one in the working directory, and
// run from anywhere else the .tsx pages would compile for React instead of preact ("React is not defined").
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../host/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
