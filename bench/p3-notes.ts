/**
 * P3: `GET /people/v2/notes?per_page=100` with a personal access token on the real host ÷
 * (a) the floor — Express + one SQL statement for the same page, the same bytes, no auth (bench/servers/floor.ts);
 * (b) a static Express handler sending the same bytes (bench/servers/static.ts).
 * Goal on the floor ratio: ≥ 0.6 on PostgreSQL, ≥ 0.4 on PGlite; the static ratio and p50/p99 are printed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { databaseName, type Benchmark } from './runner/context.ts';
import { createBenchDatabase, type BenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds, type LoadResult } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { median } from './runner/rounds.ts';
import { compareRow, printedRow, type FigureRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';

const PATH = '/people/v2/notes?per_page=100';
const USER_AGENT = 'addon-kit-bench/1.0';

/** Throws unless two bodies are the same bytes, showing where they part. */
function assertSameBytes(name: string, expected: Buffer, actual: Buffer): void {
  if (expected.equals(actual)) return;
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at++;
  const around = (b: Buffer) => b.subarray(Math.max(0, at - 60), at + 60).toString();
  throw new Error(
    `${name} does not send the host's bytes (${actual.length} vs ${expected.length}); at ${at}:\n` +
      `  host:  ${around(expected)}\n  ${name}: ${around(actual)}`,
  );
}

async function body(url: string, headers: Record<string, string>): Promise<Buffer> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

/** `185 req/s (p50 45 ms, p99 106 ms)` from the medians over rounds. */
function withLatency(results: readonly LoadResult[]): (rps: number) => string {
  return (rps) =>
    `${formatRate(rps)} (p50 ${median(results.map((r) => r.p50))} ms, p99 ${median(results.map((r) => r.p99))} ms)`;
}

export const runP3: Benchmark = async ({ options, secrets }) => {
  const db = await createBenchDatabase(options);
  const copies: BenchDatabase[] = [];
  const started: ServerProcess<unknown>[] = [];
  const bodyFile = join(tmpdir(), `addon-kit-bench-notes-${randomBytes(4).toString('hex')}.json`);
  try {
    // PGlite is single-process: the floor reads a copy of the same data.
    const floorDb = await db.copy();
    if (floorDb !== db) copies.push(floorDb);
    const host = await startServer<HostServerInfo>('host.ts', [...db.args, '--scenario=notes'], { env: secrets });
    started.push(host);
    const { clientId, secret } = host.info.pat!;
    const headers = {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'user-agent': USER_AGENT,
    };
    const expected = await body(`${host.info.url}${PATH}`, headers);
    await writeFile(bodyFile, expected);
    const organizationId = (JSON.parse(expected.toString()) as { meta: { parent: { id: string } } }).meta.parent.id;

    const floor = await startServer<{ url: string }>('floor.ts', [
      ...floorDb.args,
      `--base-url=${host.info.url}`,
      `--organization-id=${organizationId}`,
    ]);
    started.push(floor);
    const staticServer = await startServer<{ url: string }>('static.ts', [`--body-file=${bodyFile}`]);
    started.push(staticServer);
    assertSameBytes('the floor', expected, await body(`${floor.info.url}${PATH}`, headers));
    assertSameBytes('the static handler', expected, await body(`${staticServer.info.url}${PATH}`, headers));

    const target = (name: string, url: string) => ({
      name,
      spec: () => ({ url: `${url}${PATH}`, method: 'GET', headers }),
    });
    const [hostResults, floorResults, staticResults] = await loadRounds(
      `P3 (${databaseName(options)})`,
      [target('host', host.info.url), target('floor', floor.info.url), target('static', staticServer.info.url)],
      options,
    );
    const rps = (results: readonly LoadResult[]) => results.map((r) => r.rps);
    const goal = options.database === 'postgres' ? 0.6 : 0.4;
    const rows: FigureRow[] = [
      compareRow({
        figure: `P3 notes page: host ÷ floor (${databaseName(options)})`,
        a: rps(hostResults!),
        b: rps(floorResults!),
        format: withLatency(hostResults!),
        formatB: withLatency(floorResults!),
        goal: { on: 'ratio', op: '>=', value: goal, text: `≥ ${goal}` },
      }),
      printedRow({
        figure: `P3 notes page: host ÷ static (${databaseName(options)})`,
        a: rps(hostResults!),
        b: rps(staticResults!),
        format: formatRate,
      }),
    ];
    return rows;
  } finally {
    for (const server of started.reverse()) await server.stop();
    for (const copy of copies) await copy.drop();
    await db.drop();
    await rm(bodyFile, { force: true });
  }
};
