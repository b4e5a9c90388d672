/**
 * The host's default log destination batches its writes (host/logger.ts): lines still reach standard output
 * without further traffic, and none is lost when the process exits right after logging.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../support/logger-child.ts', import.meta.url));

/** Starts the child; resolves with its standard output once `done` says so or it exits. */
function run(mode: 'idle' | 'exit', done: (stdout: string) => boolean): Promise<{ stdout: string; ms: number }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', SCRIPT, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let first = 0;
  return new Promise((resolve) => {
    const finish = () => {
      if (child.exitCode === null) child.kill();
      resolve({ stdout, ms: Date.now() - first });
    };
    child.stdout.on('data', (data: Buffer) => {
      if (!stdout) first = Date.now();
      stdout += String(data);
      if (done(stdout)) finish();
    });
    child.on('close', finish);
  });
}

const messages = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string; n: number }).n);

describe('the default log destination', () => {
  it('writes a lone line while the process idles (the periodic flush)', { timeout: 60_000 }, async () => {
    const { stdout } = await run('idle', (out) => out.includes('\n'));
    expect(messages(stdout)).toEqual([0]);
    expect(JSON.parse(stdout.trim())).toMatchObject({ level: 30, msg: 'idle line', n: 0 });
  });

  it(
    'writes every line of a burst smaller than a batch when the process exits at once',
    { timeout: 60_000 },
    async () => {
      const { stdout } = await run('exit', () => false);
      expect(messages(stdout)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    },
  );
});
