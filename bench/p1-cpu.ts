/**
 * P1's cost per call in CPU time rather than throughput: the host's proxy and the bare Express relay
 * (bench/servers/bare-proxy.ts) each loaded for `--seconds` in interleaved rounds, and the CPU time (user +
 * system, from /proc) each process spent per answered call — plus, on PostgreSQL, the server processes of the
 * bench database (the host's statement; the integrator's own queries are the same in both). On a shared
 * machine throughput swings with the neighbours; CPU per call barely does, so this says where a change went.
 *
 *   npx tsx --conditions=source bench/p1-cpu.ts [--database postgres] [--rounds 3] [--seconds 5]
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

/** CPU seconds of the bench database's server processes. */
async function serverCpu(): Promise<number> {
  if (!admin) return 0;
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
  let sum = 0;
  for (const { pid } of rows) sum += await cpuSeconds(pid);
  return sum;
}

try {
  const integrator = await startServer<IntegratorServerInfo>(
    'integrator.ts',
    db.kind === 'postgres' ? db.args : [`--data-dir=${integratorDir}`],
  );
  started.push(integrator);
  const { url: integratorUrl, accessToken, refreshToken } = integrator.info;
  const host = await startServer<HostServerInfo>(
    'host.ts',
    [
      ...db.args,
      '--scenario=proxy',
      `--integrator-url=${integratorUrl}`,
      `--integrator-token=${accessToken}`,
      `--integrator-refresh-token=${refreshToken}`,
    ],
    { env: benchSecrets() },
  );
  started.push(host);
  const bare = await startServer<{ url: string }>('bare-proxy.ts', [
    `--upstream=${integratorUrl}/api/messages`,
    `--token=${accessToken}`,
  ]);
  started.push(bare);
  const proxy = host.info.proxy!;
  const targets: { name: string; pid: number; spec: Omit<LoadSpec, 'seconds' | 'connections'> }[] = [
    {
      name: 'proxy',
      pid: host.child.pid!,
      spec: {
        url: `${host.info.url}/addons/installations/${proxy.installationId}/fetch/integrator`,
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
    },
    { name: 'bare relay', pid: bare.child.pid!, spec: { url: `${bare.info.url}/relay`, method: 'POST', headers: {} } },
  ];
  const perCall = new Map<string, { own: number[]; server: number[]; integrator: number[]; rps: number[] }>();
  for (const t of targets) {
    perCall.set(t.name, { own: [], server: [], integrator: [], rps: [] });
    await runLoad({ ...t.spec, seconds: 2, connections: 10 }); // warm-up
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const [own0, server0, int0] = [
        await cpuSeconds(t.pid),
        await serverCpu(),
        await cpuSeconds(integrator.child.pid!),
      ];
      const result = await runLoad({ ...t.spec, seconds, connections: 10 });
      const [own1, server1, int1] = [
        await cpuSeconds(t.pid),
        await serverCpu(),
        await cpuSeconds(integrator.child.pid!),
      ];
      const m = perCall.get(t.name)!;
      m.own.push(((own1 - own0) / result.ok) * 1e6);
      m.server.push(((server1 - server0) / result.ok) * 1e6);
      m.integrator.push(((int1 - int0) / result.ok) * 1e6);
      m.rps.push(result.rps);
      progress(
        `${t.name}: ${result.rps.toFixed(0)} req/s, process ${m.own.at(-1)!.toFixed(0)} µs/call, ` +
          `database ${m.server.at(-1)!.toFixed(0)} µs/call, integrator ${m.integrator.at(-1)!.toFixed(0)} µs/call`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, m] of perCall)
    process.stdout.write(
      `${name}: process ${median(m.own).toFixed(0)} µs/call (${Math.min(...m.own).toFixed(0)}–${Math.max(...m.own).toFixed(0)}), ` +
        `database ${median(m.server).toFixed(0)} µs/call, integrator ${median(m.integrator).toFixed(0)} µs/call, ` +
        `${median(m.rps).toFixed(0)} req/s\n`,
    );
} finally {
  for (const server of started.reverse()) await server.stop();
  await admin?.close();
  await db.drop();
  await rm(integratorDir, { recursive: true, force: true });
}
