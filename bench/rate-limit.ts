/**
 * Cost of the API rate limiter per request: the P3 request (`GET /people/v2/notes?per_page=100` with a
 * personal access token) against two `addon-kit start` processes, one with the limiter on (a limit too
 * high to refuse anything, so every request is counted) and one with `ADDON_KIT_RATE_LIMIT=off`, in
 * interleaved rounds (the order alternates) with the load from a separate process (autocannon).
 * Prints each round and the median on/off throughput ratio with its spread.
 * Run: npx tsx bench/rate-limit.ts [--rounds 7] [--seconds 5] [--connections 10]   (DATABASE_URL: PostgreSQL)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../bin/addon-kit.js', import.meta.url));
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? NaN : Number(process.argv[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
const rounds = arg('rounds', 7);
const seconds = arg('seconds', 5);
const connections = arg('connections', 10);
const databaseUrl = process.env.DATABASE_URL || undefined;

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${args.join(' ')} exited ${code}:\n${err}`));
    });
  });
}

/** A started host (its own data directory, or schema on PostgreSQL) and a PAT's Basic header. */
async function startHost(label: string, rateLimit: string) {
  const dir = await mkdtemp(join(tmpdir(), `addon-kit-bench-${label}-`));
  const env = {
    DATABASE_URL: databaseUrl ?? '',
    ADDON_KIT_DATABASE_SCHEMA: databaseUrl ? `bench_${label}_${process.pid}` : '',
    ADDON_KIT_LOG_LEVEL: 'warn',
  };
  await run([CLI, 'seed', '--data-dir', dir], env);
  const created = await run(
    [CLI, 'pat', 'create', '--data-dir', dir, '--email', 'admin@demo.test', '--name', 'bench', '--json'],
    env,
  );
  const pat = JSON.parse(created) as { client_id: string; secret: string };
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data-dir', dir], {
    env: { ...process.env, ...env, ADDON_KIT_RATE_LIMIT: rateLimit },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('close', () => reject(new Error(`start exited early:\n${out}`)));
  });
  return {
    label,
    url,
    authorization: `Basic ${Buffer.from(`${pat.client_id}:${pat.secret}`).toString('base64')}`,
    async stop() {
      child.removeAllListeners('close');
      await new Promise((resolve) => {
        child.on('close', resolve);
        child.kill('SIGTERM');
      });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Requests per second of the P3 request for `seconds`, measured by autocannon in its own process. */
async function measure(host: { url: string; authorization: string }): Promise<{ rps: number; non2xx: number }> {
  const out = await run([
    AUTOCANNON,
    ...['-j', '-c', String(connections), '-d', String(seconds)],
    ...['-H', `authorization=${host.authorization}`, '-H', 'user-agent=addon-kit-bench/1.0'],
    `${host.url}/people/v2/notes?per_page=100`,
  ]);
  const result = JSON.parse(out) as { requests: { average: number }; non2xx: number };
  return { rps: result.requests.average, non2xx: result.non2xx };
}

const on = await startHost('on', '1000000/20');
const off = await startHost('off', 'off');
try {
  // Warm both (JIT, caches, pools) before measuring.
  await measure(on);
  await measure(off);
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? [on, off] : [off, on];
    const results = new Map<string, { rps: number; non2xx: number }>();
    for (const host of order) results.set(host.label, await measure(host));
    const a = results.get('on')!;
    const b = results.get('off')!;
    if (a.non2xx || b.non2xx) throw new Error(`round ${round}: non-2xx responses (on ${a.non2xx}, off ${b.non2xx})`);
    ratios.push(a.rps / b.rps);
    const line = `limiter on ${a.rps.toFixed(1)} req/s, off ${b.rps.toFixed(1)} req/s, ratio ${(a.rps / b.rps).toFixed(3)}`;
    process.stderr.write(`round ${round}/${rounds}: ${line}\n`);
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `rate limiter (${databaseUrl ? 'PostgreSQL' : 'PGlite, memory store'}): P3 throughput on/off median ${median.toFixed(3)} ` +
      `(spread ${sorted[0]!.toFixed(3)}–${sorted.at(-1)!.toFixed(3)}, ${rounds} rounds × ${seconds} s, ${connections} connections)`,
  );
} finally {
  await on.stop();
  await off.stop();
}
