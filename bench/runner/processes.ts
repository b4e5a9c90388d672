/** The processes a benchmark starts: servers (host, floor, integrator…) that report readiness over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (the working directory of every child). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs TypeScript children through tsx, as bin/addon-kit.js does. */
export const TSX_EXEC_ARGV = ['--conditions=source', '--import', 'tsx'];

/** A running server process and what it reported when ready. */
export interface ServerProcess<T> {
  info: T;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

/** The message a server script sends (process.send) once it listens. */
export interface ReadyMessage<T> {
  ready: T;
}

/** Sends the ready message from inside a server script. */
export function reportReady<T>(info: T): void {
  process.send!({ ready: info } satisfies ReadyMessage<T>);
}

/** Stops a server script on SIGTERM or when its parent goes away. */
export function stopOn(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

/**
 * Starts `bench/servers/<script>` with arguments; resolves with its ready message. `root`: another checkout of the
 * repository to start the script from (its own sources; bench/p1-cpu.ts's baseline).
 */
export function startServer<T>(
  script: string,
  args: string[] = [],
  options: { env?: NodeJS.ProcessEnv; execArgv?: string[]; root?: string } = {},
): Promise<ServerProcess<T>> {
  const path = options.root
    ? `${options.root}/bench/servers/${script}`
    : fileURLToPath(new URL(`../servers/${script}`, import.meta.url));
  const child = fork(path, args, {
    cwd: options.root ?? REPO_ROOT,
    execArgv: [...TSX_EXEC_ARGV, ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    // The servers' logs go nowhere (as a production host's would go to a collector), errors to our stderr.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`${script} exited with code ${code} before it was ready:\n${stderr}`)),
    );
    child.on('message', (message: ReadyMessage<T>) => {
      if (!message || typeof message !== 'object' || !('ready' in message)) return;
      resolve({
        info: message.ready,
        child,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}
