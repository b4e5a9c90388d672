/**
 * P7: `addon-kit start` on a new data directory (PGlite) or a new database (PostgreSQL) until /health answers,
 * then a restart on the same data, each next to the CLI's own start-up (`addon-kit help`: Node.js + tsx, no
 * database) measured in the same round. Goals: first start ≤ 15 s, restart ≤ 3 s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseName, type Benchmark } from './runner/context.ts';
import { createPostgresDatabase } from './runner/databases.ts';
import { REPO_ROOT } from './runner/processes.ts';
import { interleave } from './runner/rounds.ts';
import { compareRow } from './runner/table.ts';

const CLI = fileURLToPath(new URL('../host/bin/addon-kit.js', import.meta.url));

function timeUsage(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'help'], { cwd: REPO_ROOT, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

/** Starts the host and resolves with the time until /health answers 200; then stops it (SIGTERM). */
async function timeStart(dataDir: string, databaseUrl: string | undefined): Promise<number> {
  const started = performance.now();
  const args = [
    CLI,
    'start',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    ...(databaseUrl ? ['--database-url', databaseUrl] : []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-8000);
  };
  child.stderr.on('data', collect);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      collect(chunk);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void closed.then(() => reject(new Error(`start exited before listening:\n${out}`)));
  });
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = performance.now() - started;
  child.kill('SIGTERM');
  await closed;
  return elapsed;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export const runP7: Benchmark = async ({ options }) => {
  const [results] = await interleave(
    `P7 (${databaseName(options)})`,
    options.rounds,
    [
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-start-'));
        const database =
          options.database === 'postgres' ? await createPostgresDatabase(options.databaseUrl!) : undefined;
        try {
          const usage = await timeUsage();
          const first = await timeStart(dir, database?.databaseUrl);
          const restart = await timeStart(dir, database?.databaseUrl);
          return { usage, first, restart };
        } finally {
          await database?.drop();
          await rm(dir, { recursive: true, force: true });
        }
      },
    ],
    ([r]) => `CLI ${seconds(r!.usage)} · first start ${seconds(r!.first)} · restart ${seconds(r!.restart)}`,
  );
  const usage = results!.map((r) => r.usage);
  return [
    compareRow({
      figure: `P7 first start to /health (${databaseName(options)}) ÷ CLI start-up`,
      a: results!.map((r) => r.first),
      b: usage,
      format: seconds,
      goal: { on: 'a', op: '<=', value: 15_000, text: '≤ 15 s' },
    }),
    compareRow({
      figure: `P7 restart to /health (${databaseName(options)}) ÷ CLI start-up`,
      a: results!.map((r) => r.restart),
      b: usage,
      format: seconds,
      goal: { on: 'a', op: '<=', value: 3_000, text: '≤ 3 s' },
    }),
  ];
};
