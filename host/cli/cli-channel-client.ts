/**
 * The CLI's side of a running host's CLI channel (cli-channel.ts): a command that needs the embedded database a
 * running `start` holds is sent there whole, and its output and exit code come back as they happen.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import type { CommandIo } from './io.ts';

/** The channel's socket in a data directory. */
export function cliChannelPath(dataDir: string): string {
  return join(dataDir, 'cli.sock');
}

/** One line of the channel's answer: a line of output, or the exit code. */
export type ChannelMessage = { out: string } | { err: string } | { exit: number };

/** Runs `argv` (a command and its arguments) in the host listening on `socketPath`; resolves with its exit code. */
export function askRunningHost(socketPath: string, argv: string[], io: CommandIo): Promise<number> {
  io.err(`addon-kit: a running addon-kit start holds this data directory; it runs the command`);
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      path: '/commands',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', (error) => reject(new Error(`the running host did not take the command (${error.message})`)));
    req.on('response', (res) => {
      let buffer = '';
      let exit: number | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const message = JSON.parse(buffer.slice(0, newline)) as ChannelMessage;
          buffer = buffer.slice(newline + 1);
          if ('out' in message) io.out(message.out);
          else if ('err' in message) io.err(message.err);
          else exit = message.exit;
        }
      });
      res.on('end', () =>
        exit === undefined ? reject(new Error('the running host stopped before the command ended')) : resolve(exit),
      );
    });
    req.end(JSON.stringify({ argv }));
  });
}
