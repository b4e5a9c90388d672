/**
 * P9: the P3 page (`GET /people/v2/notes?per_page=100`, a personal access token) through HAProxy with three hosts
 * (deploy/haproxy.cfg as it is: TLS at the proxy, round robin, health checks) ÷ the same page from one host directly,
 * same machine, interleaved rounds. Goal ≥ 0.85: the balancer and the extra processes cost at most 15 %.
 * PostgreSQL only (several hosts share a database only there); on PGlite it is skipped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareHaproxy, type RunningHaproxy } from '../test/support/haproxy.ts';
import type { Benchmark } from './runner/context.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds, type LoadResult } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { median, progress } from './runner/rounds.ts';
import { compareRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';

const PATH = '/people/v2/notes?per_page=100';
const USER_AGENT = 'addon-kit-bench/1.0';

const withLatency =
  (results: readonly LoadResult[]) =>
  (rps: number): string =>
    `${formatRate(rps)} (p50 ${median(results.map((r) => r.p50))} ms, p99 ${median(results.map((r) => r.p99))} ms)`;

export const runP9: Benchmark = async ({ options, secrets }) => {
  if (options.database !== 'postgres') {
    progress('P9 skipped: several hosts share one database only on PostgreSQL (--database postgres)');
    return [];
  }
  const db = await createBenchDatabase(options);
  const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-p9-'));
  const hosts: ServerProcess<HostServerInfo>[] = [];
  let haproxy: RunningHaproxy | undefined;
  try {
    for (let i = 0; i < 3; i++)
      hosts.push(await startServer<HostServerInfo>('host.ts', [...db.args, '--scenario=notes'], { env: secrets }));
    const balancer = await prepareHaproxy(dir);
    haproxy = await balancer.start(
      hosts.map((h) => {
        const port = Number(new URL(h.info.url).port);
        // The bench hosts have no sandbox listener: the sandbox backend stays DOWN, which P9 does not use.
        return { port, sandboxPort: port };
      }),
    );
    await haproxy.up();
    const { clientId, secret } = hosts[0]!.info.pat!;
    const headers = {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'user-agent': USER_AGENT,
    };
    const target = (name: string, url: string) => ({
      name,
      spec: () => ({ url: `${url}${PATH}`, method: 'GET', headers }),
    });
    const [balanced, direct] = await loadRounds(
      'P9 (PostgreSQL)',
      [
        target('HAProxy + 3 hosts', balancer.url.replace('localhost', '127.0.0.1')),
        target('one host', hosts[0]!.info.url),
      ],
      options,
    );
    return [
      compareRow({
        figure: 'P9 notes page: HAProxy (TLS) with three hosts ÷ one host directly (PostgreSQL)',
        a: balanced!.map((r) => r.rps),
        b: direct!.map((r) => r.rps),
        format: withLatency(balanced!),
        formatB: withLatency(direct!),
        goal: { on: 'ratio', op: '>=', value: 0.85, text: '≥ 0.85' },
      }),
    ];
  } finally {
    await haproxy?.stop();
    for (const host of hosts.reverse()) await host.stop();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
};
