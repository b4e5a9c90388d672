/** `npm run build:addon-sdk`: builds every SDK bundle into dist/addon-sdk and prints their gzip sizes. */
import { buildAddonSdk } from './build.ts';
import { printSizes } from './size.ts';

const outDir = await buildAddonSdk();
const ok = await printSizes(outDir);
process.exitCode = ok ? 0 : 1;
