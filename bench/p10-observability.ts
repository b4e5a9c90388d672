/**
 * P10: the P3 page (`GET /people/v2/notes?per_page=100`, a personal access token) on a host with metrics and trace
 * export on (a metrics token set, so every request is measured; `OTEL_EXPORTER_OTLP_ENDPOINT` at a local OTLP/HTTP
 * receiver that accepts and drops the spans) ÷ the same host with both off, interleaved rounds. Goal ≥ 0.95. Also
 * printed: the same ratio in answers per CPU-second of each host process, which other load on the machine moves far
 * less than throughput (both hosts are CPU-bound under this load).
 * The receiver runs in the harness process; a copy of the database serves the second host on PGlite.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { databaseName, type Benchmark } from './runner/context.ts';
import { processCpuSeconds } from './runner/cpu.ts';
import { createBenchDatabase, type BenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds, type LoadResult } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { median } from './runner/rounds.ts';
import { compareRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';

const PATH = '/people/v2/notes?per_page=100';
const USER_AGENT = 'addon-kit-bench/1.0';
const METRICS_TOKEN = 'bench-metrics-token-bench-metrics-token';

/** 2xx answers per CPU second of the serving host: its cost per request, whatever else the machine runs. */
const perCpuSecond = (r: LoadResult): number => r.ok / Math.max(r.cpuSeconds ?? 0, 0.01);

const withLatency =
  (results: readonly LoadResult[]) =>
  (rps: number): string =>
    `${formatRate(rps)} (p50 ${median(results.map((r) => r.p50))} ms, p99 ${median(results.map((r) => r.p99))} ms)`;

export const runP10: Benchmark = async ({ options, secrets }) => {
  const db = await createBenchDatabase(options);
  const copies: BenchDatabase[] = [];
  const hosts: ServerProcess<HostServerInfo>[] = [];
  let spans = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      spans += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    const second = await db.copy();
    if (second !== db) copies.push(second);
    const on = await startServer<HostServerInfo>(
      'host.ts',
      [...db.args, '--scenario=notes', `--metrics-token=${METRICS_TOKEN}`, `--otlp-endpoint=${endpoint}`],
      { env: secrets },
    );
    hosts.push(on);
    const off = await startServer<HostServerInfo>('host.ts', [...second.args, '--scenario=notes'], { env: secrets });
    hosts.push(off);
    const target = (name: string, server: ServerProcess<HostServerInfo>) => {
      const { clientId, secret } = server.info.pat!;
      const headers = {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'user-agent': USER_AGENT,
      };
      return {
        name,
        spec: () => ({ url: `${server.info.url}${PATH}`, method: 'GET', headers }),
        cpu: () => processCpuSeconds(server.child.pid!),
      };
    };
    const [withObservability, without] = await loadRounds(
      `P10 (${databaseName(options)})`,
      [target('metrics + tracing on', on), target('off', off)],
      options,
    );
    const scrape = await fetch(`${on.info.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    if (scrape.status !== 200) throw new Error(`the measured host's /metrics answered ${scrape.status}`);
    if (spans === 0) throw new Error('the measured host exported no span');
    return [
      compareRow({
        figure: `P10 notes page: metrics and trace export on ÷ off (${databaseName(options)})`,
        a: withObservability!.map((r) => r.rps),
        b: without!.map((r) => r.rps),
        format: withLatency(withObservability!),
        formatB: withLatency(without!),
        goal: { on: 'ratio', op: '>=', value: 0.95, text: '≥ 0.95' },
      }),
      compareRow({
        figure: `P10 the same, in answers per host CPU-second (${databaseName(options)})`,
        a: withObservability!.map(perCpuSecond),
        b: without!.map(perCpuSecond),
        format: (rate) => `${rate.toFixed(0)} answers/CPU-s`,
        goal: { on: 'ratio', op: '>=', value: 0.95, text: '≥ 0.95' },
      }),
    ];
  } finally {
    for (const host of hosts.reverse()) await host.stop();
    for (const copy of copies) await copy.drop();
    await db.drop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
};
