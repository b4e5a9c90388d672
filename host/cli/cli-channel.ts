/**
 * A running host's CLI channel: while `start` holds the embedded database (PGlite is one process), the commands that
 * need it (`seed`, `pat create`, `oauth-app create`, `webhooks trigger`) are sent here by the CLI and run inside the host, on the host's
 * own database connection, their output streamed back as they write it. The channel is a Unix socket in the data
 * directory, readable and writable by its owner only (0600) — who may use it is who may read the data directory,
 * which holds the secrets anyway. Why not PGlite over a socket: see host/cli/README.md.
 */
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { ChannelMessage } from './cli-channel-client.ts';
import { cliChannelPath } from './cli-channel-client.ts';
import { UsageError } from './args.ts';
import type { CommandIo } from './io.ts';
import { runInHost, type Storage } from './storage.ts';

/** A command the channel runs. */
export type ChannelCommand = (argv: string[], io: CommandIo) => Promise<number>;

/** The commands that open the database, by name: the ones the CLI sends to a running host. */
const COMMANDS: Record<string, () => Promise<ChannelCommand>> = {
  seed: async () => (await import('./seed-command.ts')).seedCommand,
  pat: async () => (await import('./pat-command.ts')).patCommand,
  'oauth-app': async () => (await import('./oauth-app-command.ts')).oauthAppCommand,
  webhooks: async () => (await import('./webhooks-command.ts')).webhooksCommand,
};

/** Runs a command line received on the channel as the CLI would: a usage mistake is one line and exit code 2. */
export async function runChannelCommand(argv: string[], io: CommandIo): Promise<number> {
  const [name = '', ...rest] = argv;
  const load = COMMANDS[name];
  if (!load) {
    io.err(`addon-kit: ${JSON.stringify(name)} does not run through a host's CLI channel`);
    return 2;
  }
  try {
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    io.err(`addon-kit ${name}: ${(error as Error).message}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** Longest socket path Linux and macOS accept (sun_path), with the terminating NUL. */
const MAX_SOCKET_PATH = 103;

/** A listening channel. */
export interface CliChannel {
  path: string;
  close(): Promise<void>;
}

/**
 * Opens the channel of `storage`'s data directory; `run` runs a command line (its first word the command).
 * Undefined when the socket path is too long for the platform (the CLI then says the data directory is in use).
 */
export async function openCliChannel(
  storage: Storage,
  log: (line: string) => void,
  run: (argv: string[], io: CommandIo) => Promise<number> = runChannelCommand,
): Promise<CliChannel | undefined> {
  const path = cliChannelPath(storage.dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log(`addon-kit: the CLI channel's path ${path} is too long; CLI commands cannot reach this host while it runs`);
    return undefined;
  }
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let argv: unknown;
      try {
        argv = (JSON.parse(body) as { argv?: unknown }).argv;
      } catch {
        argv = undefined;
      }
      if (
        req.method !== 'POST' ||
        req.url !== '/commands' ||
        !Array.isArray(argv) ||
        argv.some((a) => typeof a !== 'string')
      ) {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const send = (message: ChannelMessage) => res.write(`${JSON.stringify(message)}\n`);
      const io: CommandIo = { out: (line) => send({ out: line }), err: (line) => send({ err: line }) };
      runInHost(storage, () => run(argv as string[], io)).then(
        (exit) => res.end(`${JSON.stringify({ exit })}\n`),
        (error: Error) => {
          io.err(`addon-kit: ${error.message}`);
          res.end(`${JSON.stringify({ exit: 1 })}\n`);
        },
      );
    });
  });
  // A socket left by a host that died is replaced (the data directory's lock says no other host runs).
  await unlink(path).catch(() => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return {
    path,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await unlink(path).catch(() => {});
    },
  };
}
