/**
 * `npm run bench`: every figure (P1–P7 of issue 16, P9–P10 of issue 27) with interleaved A/B rounds, one table on stdout
 * (progress on stderr). Options: bench/runner/options.ts; what each figure means: bench/README.md.
 */
import { cpus } from 'node:os';
import type { Benchmark, BenchContext } from './runner/context.ts';
import { benchSecrets } from './runner/databases.ts';
import { BENCH_USAGE, BenchUsageError, parseBenchOptions, type FigureId } from './runner/options.ts';
import { progress } from './runner/rounds.ts';
import { failedRow, renderTable, type FigureRow } from './runner/table.ts';

const BENCHMARKS: Record<FigureId, { load: () => Promise<Benchmark>; goal: string }> = {
  P1: { load: async () => (await import('./p1-proxy.ts')).runP1, goal: '≥ 0.8' },
  P2: { load: async () => (await import('./p2-refresh.ts')).runP2, goal: '≥ 0.5' },
  P3: { load: async () => (await import('./p3-notes.ts')).runP3, goal: '≥ 0.6 (PostgreSQL), ≥ 0.4 (PGlite)' },
  P4: {
    load: async () => {
      const [{ runP4 }, { runP4AfterLoad }] = await Promise.all([
        import('./p4-list-run.ts'),
        import('./p4-after-load.ts'),
      ]);
      return async (context) => [...(await runP4(context)), ...(await runP4AfterLoad(context))];
    },
    goal: '≤ 2 fresh, ≤ 1.5 again, ≤ 2 × floor after a bulk load',
  },
  P5: { load: async () => (await import('./p5-sdk-size.ts')).runP5, goal: '≤ 25 kB / ≤ 20 kB' },
  P6: { load: async () => (await import('./p6-handshake.ts')).runP6, goal: '≤ 1.5 s' },
  P7: { load: async () => (await import('./p7-startup.ts')).runP7, goal: '≤ 15 s / ≤ 3 s' },
  P8: { load: async () => (await import('./p8-webhooks.ts')).runP8, goal: '≥ 0.5 / ≥ 0.9' },
  P9: { load: async () => (await import('./p9-balanced.ts')).runP9, goal: '≥ 0.85' },
  P10: { load: async () => (await import('./p10-observability.ts')).runP10, goal: '≥ 0.95' },
};

async function main(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseBenchOptions(argv);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${BENCH_USAGE}\n`);
    return 2;
  }
  const context: BenchContext = { options, secrets: benchSecrets() };
  progress(
    `bench: ${options.only.join(', ')} on ${options.database}; ${options.rounds} round(s) of ${options.seconds} s, ` +
      `${options.connections} connections; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node.js ${process.version}`,
  );
  const rows: FigureRow[] = [];
  let failed = false;
  for (const figure of options.only) {
    const started = performance.now();
    try {
      rows.push(...(await (await BENCHMARKS[figure].load())(context)));
    } catch (error) {
      failed = true;
      progress(`${figure} failed: ${(error as Error).stack ?? String(error)}`);
      rows.push(failedRow(figure, (error as Error).message.split('\n')[0]!, BENCHMARKS[figure].goal));
    }
    progress(`${figure} done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  process.stdout.write(`${renderTable(rows)}\n`);
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
