/**
 * `addon-kit addon build`: builds the add-on into the single classic script the sandbox loads (the SDK's vite
 * preset) and prints its gzip size against the budget; exit 1 when the build fails or is over budget.
 * @example addon-kit addon build --entry src/index.tsx --out dist/addon.js --budget-kb 40
 */
import { buildAddon } from '@addon-kit/sdk/vite';
import { buildSettings, sizeLine } from './addon-build-options.ts';
import { parse } from './args.ts';
import { formatBuildError } from './build-error.ts';
import { ADDON_BUILD_FORM } from './command-specs.ts';
import type { CommandIo } from './io.ts';

/** Runs `addon build`; resolves with the exit code. */
export async function addonBuildCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parse(argv, ADDON_BUILD_FORM.options);
  const settings = buildSettings(values);
  let result;
  try {
    result = await buildAddon(settings);
  } catch (error) {
    io.err('build failed:');
    for (const line of await formatBuildError(error)) io.err(`  ${line}`);
    return 1;
  }
  io.out(`built ${sizeLine(result)}`);
  return result.ok ? 0 : 1;
}
