/** The `addon-kit` command line: dispatches to one command per file. */
import { ADDON_USAGE } from './addon-usage.ts';
import { UsageError } from './args.ts';
import { processIo, type CommandIo } from './io.ts';
import { ConfigError } from '../config.ts';
import { DataDirInUseError } from '../db/database.ts';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

// Commands load on demand: a usage mistake or `pat create` never loads the host's OAuth server.
const COMMANDS: Record<string, { load: () => Promise<Command>; usage: string }> = {
  start: {
    load: async () => (await import('./start-command.ts')).startCommand,
    usage: 'addon-kit start [--port 4000] [--sandbox-port P] [--integrator-port 4100] [--no-demo] [--data-dir ./.addon-kit] [--database-url postgres://…] [--demo-password P] [--base-url URL]',
  },
  seed: { load: async () => (await import('./seed-command.ts')).seedCommand, usage: 'addon-kit seed [--people N] [--data-dir D] [--database-url U]' },
  pat: { load: async () => (await import('./pat-command.ts')).patCommand, usage: 'addon-kit pat create --email E --name N [--json]' },
  'oauth-app': {
    load: async () => (await import('./oauth-app-command.ts')).oauthAppCommand,
    usage: 'addon-kit oauth-app create --name N --redirect-uri U [--public] [--scopes "people api"] [--json]',
  },
  addon: { load: async () => (await import('./addon-command.ts')).addonCommand, usage: ADDON_USAGE },
  create: { load: async () => (await import('./create-command.ts')).createCommand, usage: 'addon-kit create integrator|addon <dir> [--from-registry | --packages DIR]' },
  doctor: {
    load: async () => (await import('./doctor-command.ts')).doctorCommand,
    usage: 'addon-kit doctor --env development [--config addon.config.json] [--host http://localhost:4000] [--username U --password P]',
  },
};

export function usage(): string {
  return ['usage:', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

/** Runs a command line; resolves with the exit code (2 for a usage mistake). */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`addon-kit: unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`);
    return 2;
  }
  try {
    return await (await command.load())(rest, io);
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
