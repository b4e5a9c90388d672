/** Argument parsing for the CLI: node's parseArgs, with every mistake turned into one clear line. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'usage';
}

/** Options every command that touches the database takes. */
export const DATABASE_OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Parses strictly; unknown options, missing values and stray positionals become UsageErrors. */
/** What `parse` returns for options `O`: typed values and the positionals. */
export type ParsedArgs<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;

export function parse<const O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals = 0): ParsedArgs<O> {
  try {
    const result = parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
    if (result.positionals.length > positionals) throw new UsageError(`unexpected argument: ${result.positionals[positionals]}`);
    return result;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
}

/** A required string option. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value;
}

/** An integer option within bounds. */
export function integer(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}
