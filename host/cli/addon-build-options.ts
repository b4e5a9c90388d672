/** What `addon build` and `addon dev` build (their options are declared in command-specs.ts), and the size line. */
import { relative, resolve } from 'node:path';
import { ADDON_BUDGET_BYTES, formatSizeReport, type AddonBuildResult } from '@addon-kit/sdk/vite';
import { UsageError } from './args.ts';

/** What `buildAddon` gets. */
export interface BuildSettings {
  entry: string;
  outFile: string;
  budget: number;
}

/** Defaults: `src/index.tsx` → `dist/addon.js`, the SDK's add-on budget. */
export function buildSettings(values: {
  entry?: string | undefined;
  out?: string | undefined;
  'budget-kb'?: string | undefined;
}): BuildSettings {
  const kb = values['budget-kb'] === undefined ? ADDON_BUDGET_BYTES / 1024 : Number(values['budget-kb']);
  if (!Number.isFinite(kb) || kb <= 0)
    throw new UsageError(`--budget-kb must be a positive number, got ${JSON.stringify(values['budget-kb'])}`);
  return {
    entry: resolve(values.entry ?? 'src/index.tsx'),
    outFile: resolve(values.out ?? 'dist/addon.js'),
    budget: Math.round(kb * 1024),
  };
}

/** One line: the file (relative to the working directory), its size and gzip size against the budget. */
export function sizeLine(result: AddonBuildResult): string {
  return formatSizeReport({ ...result, file: relative(process.cwd(), result.file) || result.file }).replace(
    /\s+/g,
    ' ',
  );
}
