/** Runs the real `addon-kit` CLI as a child process. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../host/bin/addon-kit.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How the child runs: its working directory (default this process's) and environment overrides. */
export interface CliOptions {
  cwd?: string;
  /** Variables to remove from the inherited environment (e.g. ADDON_KIT_PORT, so a default applies). */
  unset?: string[];
}

/** The inherited environment without DATABASE_URL (tests pass --database-url), with `env` on top. */
function childEnv(env: NodeJS.ProcessEnv, unset: string[] = []): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', ...env };
  for (const name of unset) delete result[name];
  return result;
}

/** Runs a command to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(env, options.unset), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running command that printed what `startCli` waited for. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  match: RegExpMatchArray;
}

/** Starts a long-running command and resolves once stdout matches `ready`. */
export function startCli(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
  options: CliOptions = {},
): Promise<RunningCli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(env, options.unset), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      stdout += d;
      const match = stdout.match(ready);
      if (match) resolve({ child, stdout: () => stdout, stderr: () => stderr, match });
    });
    child.on('close', (code) => reject(new Error(`exited with ${code} before ready:\n${stdout}\n${stderr}`)));
  });
}

/** Sends SIGTERM and waits for the exit code. */
export function stopCli(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('close');
    child.on('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
