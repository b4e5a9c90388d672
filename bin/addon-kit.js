#!/usr/bin/env node
// The addon-kit CLI. TypeScript sources run through tsx's loader: no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../host/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
