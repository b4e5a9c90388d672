/** The `addon-kit` command line: dispatches to one command per file. */
import { UsageError } from './args.ts';
import { processIo, type CommandIo } from './io.ts';
import { oauthAppCommand } from './oauth-app-command.ts';
import { patCommand } from './pat-command.ts';
import { seedCommand } from './seed-command.ts';
import { START_USAGE, startCommand } from './start-command.ts';
import { ConfigError } from '../config.ts';
import { DataDirInUseError } from '../db/database.ts';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  start: { run: startCommand, usage: START_USAGE },
  seed: { run: seedCommand, usage: 'addon-kit seed [--people N] [--data-dir D] [--database-url U]' },
  pat: { run: patCommand, usage: 'addon-kit pat create --email E --name N [--json]' },
  'oauth-app': { run: oauthAppCommand, usage: 'addon-kit oauth-app create --name N --redirect-uri U [--public] [--scopes "people api"] [--json]' },
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
    return await command.run(rest, io);
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
