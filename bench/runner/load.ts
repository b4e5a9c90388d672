/** Drives the load generator (bench/runner/load-process.ts, autocannon) as a separate process for one round. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, TSX_EXEC_ARGV } from './processes.ts';
import { interleave, progress } from './rounds.ts';

/** One round of load toward one target. */
export interface LoadSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Refresh-token chains (P2): `body` is built per request from a queue seeded with these unused tokens. */
  refresh?: { tokens: string[] };
}

/** What a round measured (only 2xx answers count as served). */
export interface LoadResult {
  ok: number;
  /** 2xx answers per second. */
  rps: number;
  /** Latency percentiles, milliseconds. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /** CPU seconds the serving process used during the round (when its target names the process). */
  cpuSeconds?: number;
}

const LOAD_PROCESS = fileURLToPath(new URL('./load-process.ts', import.meta.url));

/** Runs one round of load from a new process; rejects when nothing was served. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD_PROCESS, [], {
      cwd: REPO_ROOT,
      execArgv: TSX_EXEC_ARGV,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let answered = false;
    child.once('message', (message: LoadResult | { error: string }) => {
      answered = true;
      if ('error' in message) return reject(new Error(`load generator: ${message.error}`));
      if (message.ok === 0)
        return reject(
          new Error(
            `no 2xx answer from ${spec.method} ${spec.url} (${message.non2xx} non-2xx, ${message.errors} errors)`,
          ),
        );
      resolve(message);
    });
    child.once('exit', (code) => {
      if (!answered) reject(new Error(`load generator exited with code ${code} before answering`));
    });
    child.send(spec);
  });
}

/** `185 req/s`. */
export function formatRate(rps: number): string {
  return `${rps >= 100 ? rps.toFixed(0) : rps.toFixed(1)} req/s`;
}

/** Problems of a round worth a warning on stderr (non-2xx answers, socket errors, timeouts), or undefined. */
export function loadWarnings(name: string, r: LoadResult): string | undefined {
  const problems = [
    r.non2xx && `${r.non2xx} non-2xx`,
    r.errors && `${r.errors} errors`,
    r.timeouts && `${r.timeouts} timeouts`,
  ].filter(Boolean);
  return problems.length ? `${name}: ${problems.join(', ')}` : undefined;
}

/** A named load target of a figure. */
export interface LoadTarget {
  name: string;
  /** The spec of a round, built fresh per round (P2 hands every round new refresh tokens). */
  spec: () => Omit<LoadSpec, 'seconds' | 'connections'> | Promise<Omit<LoadSpec, 'seconds' | 'connections'>>;
  /** The serving process's CPU seconds so far (`processCpuSeconds`): each round then records what it used. */
  cpu?: () => number;
}

/**
 * Warms each target up (not measured), then runs interleaved rounds of load against all of them;
 * returns results[target][round] and prints one progress line per round.
 */
export async function loadRounds(
  label: string,
  targets: readonly LoadTarget[],
  options: { rounds: number; seconds: number; warmupSeconds: number; connections: number },
): Promise<LoadResult[][]> {
  const round = async (target: LoadTarget, seconds: number) => {
    const spec = await target.spec();
    const before = target.cpu?.();
    const result = await runLoad({ ...spec, seconds, connections: options.connections });
    return before === undefined ? result : { ...result, cpuSeconds: target.cpu!() - before };
  };
  for (const target of targets) await round(target, options.warmupSeconds);
  const results = await interleave(
    label,
    options.rounds,
    targets.map((target) => () => round(target, options.seconds)),
    (r) => r.map((x, i) => `${targets[i]!.name} ${formatRate(x.rps)} p99 ${x.p99} ms`).join(' · '),
  );
  results.forEach((perRound, i) => {
    const warnings = perRound.map((r) => loadWarnings(targets[i]!.name, r)).filter(Boolean);
    if (warnings.length) progress(`${label} warning: ${warnings.join('; ')}`);
  });
  return results;
}
