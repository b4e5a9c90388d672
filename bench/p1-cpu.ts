/**
 * P1's cost per call in CPU time rather than throughput: the host's proxy and the bare Express relay
 * (bench/servers/bare-proxy.ts) each loaded for `--seconds` in interleaved rounds, and the CPU time (user +
 * system, from /proc) each process spent per answered call — plus, on PostgreSQL, the server processes of the
 * bench database (the host's statement; the integrator's own queries are the same in both). On a shared
 * machine throughput swings with the neighbours; CPU per call barely does, so this says where a change went.
 *
 *   npx tsx --conditions=source bench/p1-cpu.ts [--database postgres] [--rounds 3] [--seconds 5] [--baseline DIR]
 *     [--together]
 *
 * `--baseline DIR`: also a host started from another checkout (e.g. `git archive <commit> | tar -x -C DIR`, with
 * DIR/node_modules linked to this one's), loaded in the same interleaved rounds — before and after in one run.
 * `--together`: the two hosts are loaded at the same time (10 connections each) rather than one after the other, so
 * a neighbour's burst falls on both; their paired ratio then moves far less (database and integrator CPU per call are
 * of both hosts' calls together).
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '#host/db/database.ts';
import { benchSecrets, createBenchDatabase } from './runner/databases.ts';
import { runLoad, type LoadSpec } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { progress } from './runner/rounds.ts';
import type { HostServerInfo } from './servers/host.ts';
import type { IntegratorServerInfo } from './servers/integrator.ts';

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process (0 when it has gone). */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    baseline: { type: 'string' },
    together: { type: 'boolean' },
  },
});
const database = values.database === 'postgres' ? 'postgres' : 'pglite';
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rounds = Number(values.rounds ?? 3);
const seconds = Number(values.seconds ?? 5);

const db = await createBenchDatabase({ database, databaseUrl });
const integratorDir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-integrator-'));
const started: ServerProcess<unknown>[] = [];
const dbName = 'databaseUrl' in db.location ? new URL(db.location.databaseUrl).pathname.slice(1) : undefined;
const admin = database === 'postgres' ? await openDatabase({ databaseUrl, maxConnections: 1 }) : undefined;

/** CPU seconds of each server process of the bench database. */
async function serverCpu(): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!admin) return cpu;
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
  for (const { pid } of rows) cpu.set(pid, await cpuSeconds(pid));
  return cpu;
}

/** CPU seconds the server processes spent between two readings (a process gone meanwhile is not counted). */
function serverDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

try {
  const integrator = await startServer<IntegratorServerInfo>(
    'integrator.ts',
    db.kind === 'postgres' ? db.args : [`--data-dir=${integratorDir}`],
  );
  started.push(integrator);
  const { url: integratorUrl, accessToken, refreshToken } = integrator.info;
  const secrets = benchSecrets();
  const hostArgs = async () => [
    ...(db.kind === 'postgres' ? db.args : (await db.copy()).args),
    '--scenario=proxy',
    `--integrator-url=${integratorUrl}`,
    `--integrator-token=${accessToken}`,
    `--integrator-refresh-token=${refreshToken}`,
  ];
  const host = await startServer<HostServerInfo>('host.ts', await hostArgs(), { env: secrets });
  started.push(host);
  const baseline = values.baseline
    ? await startServer<HostServerInfo>('host.ts', await hostArgs(), { env: secrets, root: values.baseline })
    : undefined;
  if (baseline) started.push(baseline);
  const bare = await startServer<{ url: string }>('bare-proxy.ts', [
    `--upstream=${integratorUrl}/api/messages`,
    `--token=${accessToken}`,
  ]);
  started.push(bare);
  const proxyTarget = (name: string, server: ServerProcess<HostServerInfo>) => {
    const proxy = server.info.proxy!;
    return {
      name,
      pid: server.child.pid!,
      spec: {
        url: `${server.info.url}/addons/installations/${proxy.installationId}/fetch/integrator`,
        method: 'POST',
        headers: {
          cookie: proxy.cookie,
          'x-csrf-token': proxy.csrf,
          origin: proxy.origin,
          'x-addon-fetch': encodeURIComponent(
            JSON.stringify({
              method: 'GET',
              url: `${integratorUrl}/api/messages`,
              headers: [['accept', 'application/json']],
            }),
          ),
        },
      },
    };
  };
  const targets: { name: string; pid: number; spec: Omit<LoadSpec, 'seconds' | 'connections'> }[] = [
    proxyTarget('proxy', host),
    ...(baseline ? [proxyTarget('baseline proxy', baseline)] : []),
    { name: 'bare relay', pid: bare.child.pid!, spec: { url: `${bare.info.url}/relay`, method: 'POST', headers: {} } },
  ];
  const perCall = new Map<
    string,
    { own: number[]; server: number[]; integrator: number[]; rps: number[]; p50: number[]; p99: number[] }
  >();
  for (const t of targets) {
    perCall.set(t.name, { own: [], server: [], integrator: [], rps: [], p50: [], p99: [] });
    await runLoad({ ...t.spec, seconds: 2, connections: 10 }); // warm-up
  }
  // --together: this host and the baseline loaded at the same time, so both meet the same neighbours (the relay alone).
  const groups = values.together
    ? [targets.filter((t) => t.name !== 'bare relay'), targets.filter((t) => t.name === 'bare relay')]
    : targets.map((t) => [t]);
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0]!);
    const order = round % 2 === 0 ? groups : [...groups].reverse();
    for (const group of order) {
      const [own0, server0, int0] = [
        await Promise.all(group.map((t) => cpuSeconds(t.pid))),
        await serverCpu(),
        await cpuSeconds(integrator.child.pid!),
      ];
      const results = await Promise.all(group.map((t) => runLoad({ ...t.spec, seconds, connections: 10 })));
      const [own1, server1, int1] = [
        await Promise.all(group.map((t) => cpuSeconds(t.pid))),
        await serverCpu(),
        await cpuSeconds(integrator.child.pid!),
      ];
      // Loaded together, the hosts share the database and the integrator: their CPU is counted over all calls.
      const calls = results.reduce((sum, r) => sum + r.ok, 0);
      group.forEach((t, i) => {
        const result = results[i]!;
        const m = perCall.get(t.name)!;
        m.own.push(((own1[i]! - own0[i]!) / result.ok) * 1e6);
        m.server.push((serverDelta(server0, server1) / calls) * 1e6);
        m.integrator.push(((int1 - int0) / calls) * 1e6);
        m.rps.push(result.rps);
        m.p50.push(result.p50);
        m.p99.push(result.p99);
        progress(
          `${t.name}: ${result.rps.toFixed(0)} req/s (p50 ${result.p50} ms, p99 ${result.p99} ms), ` +
            `process ${m.own.at(-1)!.toFixed(0)} µs/call, ` +
            `database ${m.server.at(-1)!.toFixed(0)} µs/call, integrator ${m.integrator.at(-1)!.toFixed(0)} µs/call`,
        );
      });
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const spread = (xs: number[], digits: number) =>
    `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
  const relay = perCall.get('bare relay')!;
  for (const [name, m] of perCall) {
    process.stdout.write(
      `${name}: ${spread(m.rps, 0)} req/s; process ${spread(m.own, 0)} µs/call, ` +
        `database ${median(m.server).toFixed(0)} µs/call, integrator ${median(m.integrator).toFixed(0)} µs/call, ` +
        `p50 ${median(m.p50)} ms, p99 ${median(m.p99)} ms\n`,
    );
    if (m === relay) continue;
    const perRound = (of: (x: typeof m, i: number) => number) => m.rps.map((_, i) => of(m, i));
    process.stdout.write(
      `  ${name} ÷ bare relay: throughput ${spread(
        perRound((x, i) => x.rps[i]! / relay.rps[i]!),
        2,
      )}; process CPU per call ${spread(
        perRound((x, i) => x.own[i]! / relay.own[i]!),
        2,
      )}\n`,
    );
  }
  loads.push(loadavg()[0]!);
  process.stdout.write(`load average (1 min) during the rounds: ${spread(loads, 1)}\n`);
  // Before and after in the same rounds: each round's ratio of this host to the baseline's, then their median.
  const base = perCall.get('baseline proxy');
  const mine = perCall.get('proxy')!;
  if (base) {
    const paired = (of: (x: typeof mine) => number[]) =>
      spread(
        of(mine).map((v, i) => v / of(base)[i]!),
        2,
      );
    process.stdout.write(
      `paired, proxy ÷ baseline proxy: throughput ${paired((x) => x.rps)}; process CPU per call ${paired((x) => x.own)}; ` +
        `${admin ? `database CPU per call ${paired((x) => x.server)}; ` : ''}p50 ${paired((x) => x.p50)}; p99 ${paired((x) => x.p99)}\n`,
    );
  }
} finally {
  for (const server of started.reverse()) await server.stop();
  await admin?.close();
  await db.drop();
  await rm(integratorDir, { recursive: true, force: true });
}
