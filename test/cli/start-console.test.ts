/**
 * What `addon-kit start` prints after its banner: on a terminal, readable lines (`[12:03:04] INFO: GET /login 200 3 ms`);
 * through a pipe (a service manager, a log collector), one JSON object a line. The terminal is a real
 * pseudo-terminal (util-linux `script`), so the host decides by `process.stdout.isTTY` as it does for a person.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-console-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const shellQuote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
// Colours and cursor sequences a terminal gets, and the pseudo-terminal's carriage returns.
const plain = (text: string) => stripVTControlCharacters(text).replaceAll('\r', '');

/** Starts the host (on a terminal or through a pipe); resolves with its URL once the banner says where it listens. */
function start(terminal: boolean, env: NodeJS.ProcessEnv = {}) {
  const args = [CLI, 'start', '--port', '0', '--integrator-port', '0', '--data-dir', dataDir];
  const command = terminal
    ? spawn('script', ['-qfec', [process.execPath, ...args].map(shellQuote).join(' '), '/dev/null'], {
        env: { ...process.env, DATABASE_URL: '', ...env },
        detached: true,
      })
    : spawn(process.execPath, args, { env: { ...process.env, DATABASE_URL: '', ...env }, detached: true });
  let output = '';
  command.stdout.on('data', (d) => (output += d));
  command.stderr.on('data', (d) => (output += d));
  const url = new Promise<string>((resolve, reject) => {
    const check = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(plain(output));
      if (match && /admin@other\.test/.test(output)) {
        clearInterval(check);
        resolve(match[1]!);
      }
    }, 50);
    command.on('close', (code) => {
      clearInterval(check);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
  return { command, url, output: () => plain(output) };
}

/** Stops the whole process group (`script` and the host under it). */
async function stop(command: ChildProcess) {
  command.removeAllListeners('close');
  const closed = new Promise((resolve) => command.once('close', resolve));
  process.kill(-command.pid!, 'SIGTERM');
  await closed;
}

/** The lines printed after the banner's last line (the demo accounts). */
const afterBanner = (output: string) =>
  output
    .slice(output.lastIndexOf('admin@other.test'))
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '');

async function visit(url: string) {
  expect((await fetch(`${url}/login`)).status).toBe(200);
  expect((await fetch(`${url}/nowhere?code=secret-code`)).status).toBe(404);
  // Lines reach the output in batches (at most 100 ms apart).
  await new Promise((resolve) => setTimeout(resolve, 600));
}

describe('addon-kit start: the console after the banner', () => {
  it('prints a readable line for each request on a terminal', { timeout: 180_000 }, async () => {
    const run = start(true);
    try {
      const url = await run.url;
      await visit(url);
      const lines = afterBanner(run.output());
      expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
      expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/login 200 \d+ ms$/));
      expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/nowhere 404 \d+ ms$/));
      // Query strings are never logged, in either format.
      expect(run.output()).not.toContain('secret-code');
    } finally {
      await stop(run.command);
    }
  });

  it('prints one JSON object a line through a pipe', { timeout: 180_000 }, async () => {
    const run = start(false);
    try {
      const url = await run.url;
      await visit(url);
      const requests = afterBanner(run.output())
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request')
        .map(({ method, path, status }) => ({ method, path, status }));
      expect(requests).toContainEqual({ method: 'GET', path: '/login', status: 200 });
      expect(requests).toContainEqual({ method: 'GET', path: '/nowhere', status: 404 });
      expect(run.output()).not.toContain('secret-code');
    } finally {
      await stop(run.command);
    }
  });
});
