/**
 * Start-up benchmark: `addon-kit start` on a new data directory until /health answers, and a restart
 * on the same directory, each against a baseline measured in the same run — the CLI printing its usage
 * (Node + tsx start-up, no database). Targets: first start ≤ 15 s, restart ≤ 3 s.
 * Run: npx tsx bench/startup.ts [--runs 3]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../host/bin/addon-kit.js', import.meta.url));
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 3);

function timeUsage(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => spawn(process.execPath, [CLI, 'help'], { stdio: 'ignore' }).on('close', () => resolve(performance.now() - started)));
}

/** Starts the host and resolves with the time until /health answers 200; then stops it. */
async function timeStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data-dir', dataDir], { env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('close', () => reject(new Error(`start exited early:\n${out}`)));
  });
  for (;;) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) break;
  }
  const elapsed = performance.now() - started;
  child.removeAllListeners('close');
  await new Promise((resolve) => {
    child.on('close', resolve);
    child.kill('SIGTERM');
  });
  return elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const baseline: number[] = [];
const first: number[] = [];
const restart: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-'));
  baseline.push(await timeUsage());
  first.push(await timeStart(dir));
  restart.push(await timeStart(dir));
  await rm(dir, { recursive: true, force: true });
  process.stderr.write(`run ${i + 1}/${runs} done\n`);
}
const b = median(baseline);
console.log(`baseline (CLI start-up, no database): ${b.toFixed(0)} ms`);
console.log(`first start to /health:  ${median(first).toFixed(0)} ms  (${(median(first) / b).toFixed(1)}x baseline; target ≤ 15000 ms)`);
console.log(`restart to /health:      ${median(restart).toFixed(0)} ms  (${(median(restart) / b).toFixed(1)}x baseline; target ≤ 3000 ms)`);
