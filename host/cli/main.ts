/** The `addon-kit` command line: dispatches to one command per file; help comes from host/cli/command-specs.ts. */
import { commandHelp, usageLine, UsageError } from './args.ts';
import { COMMAND_SPECS, commandSpec } from './command-specs.ts';
import { processIo, type CommandIo } from './io.ts';
import { ConfigError } from '../config.ts';
import { DataDirInUseError } from '../db/database.ts';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

// Commands load on demand: a usage mistake or `pat create` never loads the host's OAuth server.
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./start-command.ts')).startCommand,
  login: async () => (await import('./login-command.ts')).loginCommand,
  logout: async () => (await import('./login-command.ts')).logoutCommand,
  seed: async () => (await import('./seed-command.ts')).seedCommand,
  pat: async () => (await import('./pat-command.ts')).patCommand,
  'oauth-app': async () => (await import('./oauth-app-command.ts')).oauthAppCommand,
  webhooks: async () => (await import('./webhooks-command.ts')).webhooksCommand,
  addon: async () => (await import('./addon-command.ts')).addonCommand,
  create: async () => (await import('./create-command.ts')).createCommand,
  doctor: async () => (await import('./doctor-command.ts')).doctorCommand,
};

/** Every command's usage lines, and where to find more. */
export function usage(): string {
  const lines = COMMAND_SPECS.flatMap((spec) => spec.forms.map((form) => `  ${usageLine(spec.name, form)}`));
  const more = 'addon-kit help <command> (or addon-kit <command> --help) prints its options.';
  return ['usage:', ...lines, '', more].join('\n');
}

const commandNames = () => COMMAND_SPECS.map((c) => c.name).join(', ');

/** Asked-for help anywhere after the command (before a `--` that ends the options). */
function asksForHelp(args: string[]): boolean {
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return options.includes('--help') || options.includes('-h');
}

/** `addon-kit help [command]`: the general usage, or that command's help. */
function help(args: string[], io: CommandIo): number {
  const [name, ...extra] = args;
  if (name === undefined) {
    io.out(usage());
    return 0;
  }
  const spec = commandSpec(name);
  if (!spec) {
    io.err(`addon-kit help: unknown command ${JSON.stringify(name)}; commands: ${commandNames()}`);
    return 2;
  }
  if (extra.length > 0) {
    io.err(`addon-kit help: unexpected argument: ${extra[0]}`);
    return 2;
  }
  io.out(commandHelp(spec));
  return 0;
}

/** Runs a command line; resolves with the exit code (0 for asked-for help, 2 for a usage mistake). */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.out(usage());
    return 2;
  }
  if (name === 'help') return help(rest, io);
  if (name === '--help' || name === '-h') return help([], io);
  const load = COMMANDS[name];
  const spec = commandSpec(name);
  if (!load || !spec) {
    io.err(`addon-kit: unknown command ${JSON.stringify(name)}; commands: ${commandNames()}`);
    return 2;
  }
  if (asksForHelp(rest)) {
    io.out(commandHelp(spec));
    return 0;
  }
  try {
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`addon-kit ${name}: ${error.message}`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof DataDirInUseError) {
      io.err(`addon-kit ${name}: ${error.message}`);
      return 1;
    }
    io.err(`addon-kit ${name}: ${(error as Error).message}`);
    return 1;
  }
}
