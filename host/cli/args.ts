/**
 * Argument parsing for the CLI: node's parseArgs over option declarations that also carry their help text, so a
 * command's usage line and `--help` are printed from exactly what `parse()` accepts. Every mistake is one line.
 */
import { parseArgs } from 'node:util';

/** A mistake in the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'usage';
}

/** One option: what parseArgs needs, and what usage and help print. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be repeated (values collect into an array). */
  multiple?: boolean;
  /** The value's placeholder in the usage line, e.g. `N`, `URL`, `4000` (string options). */
  value?: string;
  /** Allowed values; the usage line shows them as the placeholder (`development|beta|production`). */
  choices?: readonly string[];
  /** Must be given (printed without brackets; `parse` refuses its absence). */
  required?: boolean;
  /** One line of `--help`: what it does and its default. */
  help: string;
}

/** Options by long name (without `--`). */
export type OptionSpecs = Record<string, OptionSpec>;

/** A positional argument of a command form. */
export interface PositionalSpec {
  name: string;
  help: string;
}

/** One form of a command (`addon push`, `addon promote`): its action word, positionals and options. */
export interface CommandForm {
  /** The word after the command, e.g. `create` in `pat create`; absent for a command with one form. */
  action?: string;
  summary: string;
  positionals?: readonly PositionalSpec[];
  options: OptionSpecs;
  /** Lines printed after the options (e.g. credentials read from the environment). */
  notes?: readonly string[];
}

/** A command: its name and forms. */
export interface CommandSpec {
  name: string;
  forms: readonly CommandForm[];
}

/** Options every command that touches the database takes. */
export const DATABASE_OPTIONS = {
  'data-dir': {
    type: 'string',
    value: './.addon-kit',
    help: 'data directory: the embedded database, generated secrets, the demo password (or ADDON_KIT_DATA_DIR)',
  },
  'database-url': {
    type: 'string',
    value: 'postgres://…',
    help: 'use this PostgreSQL server instead of the embedded PGlite (or DATABASE_URL)',
  },
} as const satisfies OptionSpecs;

/** What `parse` returns for options `O` (named, so the declarations of the built package can name it). */
export type ParsedArgs<O extends OptionSpecs> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>
>;

/**
 * Parses strictly: unknown options, missing values, a missing required option, a value outside `choices` and
 * stray positionals become UsageErrors.
 */
export function parse<const O extends OptionSpecs>(args: string[], options: O, positionals = 0): ParsedArgs<O> {
  const result = (() => {
    try {
      return parseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
    } catch (error) {
      throw new UsageError((error as Error).message.split('\n')[0]);
    }
  })();
  if (result.positionals.length > positionals) {
    throw new UsageError(`unexpected argument: ${result.positionals[positionals]}`);
  }
  const values = result.values as Record<string, string | boolean | (string | boolean)[] | undefined>;
  for (const [flag, spec] of Object.entries(options)) {
    const given = [values[flag] ?? []].flat().filter((v) => String(v).trim() !== '');
    if (spec.required && given.length === 0) {
      const hint = spec.choices
        ? ` (one of ${spec.choices.join(', ')})`
        : spec.multiple
          ? ' (repeat it for several)'
          : '';
      throw new UsageError(`--${flag} is required${hint}`);
    }
    const outside = spec.choices ? given.find((v) => !spec.choices!.includes(String(v))) : undefined;
    if (outside !== undefined) {
      throw new UsageError(`--${flag} must be one of ${spec.choices!.join(', ')}, got ${JSON.stringify(outside)}`);
    }
  }
  return result;
}

/** A required string option (narrows the type; `parse` has already refused its absence). */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value;
}

/** An integer option within bounds. */
export function integer(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** An option with its value's placeholder: `--port 4000`, `--env development|beta|production`, `--json`. */
function optionWithValue(flag: string, spec: OptionSpec): string {
  if (spec.type === 'boolean') return `--${flag}`;
  return `--${flag} ${spec.choices ? spec.choices.join('|') : (spec.value ?? 'VALUE')}`;
}

/** How an option appears in a usage line: `--email E`, `[--json]`, `[--redirect-uri U …]`. */
function optionUsage(flag: string, spec: OptionSpec): string {
  const text = `${optionWithValue(flag, spec)}${spec.multiple ? ' …' : ''}`;
  return spec.required ? text : `[${text}]`;
}

/** The one-line usage of a form, e.g. `addon-kit pat create --email E --name N [--json] …`. */
export function usageLine(command: string, form: CommandForm): string {
  const positionals = (form.positionals ?? []).map((p) => p.name);
  const words = ['addon-kit', command, ...(form.action ? [form.action] : []), ...positionals];
  // Required options first, as a person types them.
  const entries = Object.entries(form.options);
  const ordered = [...entries.filter(([, s]) => s.required), ...entries.filter(([, s]) => !s.required)];
  return [...words, ...ordered.map(([flag, spec]) => optionUsage(flag, spec))].join(' ');
}

/** The full help of a command: the usage of each form, then each form's summary, positionals and options. */
export function commandHelp(spec: CommandSpec): string {
  const lines = ['usage:', ...spec.forms.map((form) => `  ${usageLine(spec.name, form)}`)];
  for (const form of spec.forms) {
    const rows: [string, string][] = [
      ...(form.positionals ?? []).map((p): [string, string] => [p.name, p.help]),
      ...Object.entries(form.options).map(([flag, s]): [string, string] => [
        optionWithValue(flag, s),
        `${s.help}${s.required ? ' (required)' : ''}${s.multiple ? ' (repeatable)' : ''}`,
      ]),
      ['-h, --help', 'print this help'],
    ];
    const width = Math.max(...rows.map(([left]) => left.length));
    lines.push('', `addon-kit ${spec.name}${form.action ? ` ${form.action}` : ''}: ${form.summary}`);
    lines.push(...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`));
    lines.push(...(form.notes ?? []).map((note) => `  ${note}`));
  }
  return lines.join('\n');
}
