/**
 * P2: refresh grants per second at the host's `POST /oauth/token` ÷ bare oidc-provider (same version,
 * in-memory adapter, bench/servers/bare-oidc.ts). Every request spends a refresh token never used before:
 * each connection starts from fresh tokens and goes on with the rotated one it gets back. Goal ≥ 0.5.
 * Also printed: the floor of a host that keeps its tokens in a database — the same bare oidc-provider with the
 * plainest durable adapter on the same database kind (bench/servers/bare-oidc-adapter.ts) — ÷ the in-memory
 * one, and the host ÷ that floor.
 */
import { databaseName, type Benchmark } from './runner/context.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { compareRow, printedRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';

const FORM = 'application/x-www-form-urlencoded';

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

interface BareOidc {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** A round's load on a bare provider: refresh tokens issued just before it (outside the measured time). */
async function bareSpec(bare: BareOidc, count: number) {
  const issued = await fetch(`${bare.url}/bench/issue?count=${count}`, { method: 'POST' });
  const { tokens } = (await issued.json()) as { tokens: string[] };
  return {
    url: `${bare.url}/token`,
    method: 'POST',
    headers: { authorization: basic(bare.clientId, bare.clientSecret), 'content-type': FORM },
    refresh: { tokens },
  };
}

export const runP2: Benchmark = async ({ options, secrets }) => {
  const db = await createBenchDatabase(options);
  const started: ServerProcess<unknown>[] = [];
  // Each round starts every connection on a fresh chain, with as many spares for chains a failure breaks.
  const perRound = options.connections * 2;
  try {
    const host = await startServer<HostServerInfo>(
      'host.ts',
      [...db.args, '--scenario=refresh', `--tokens=${perRound * (options.rounds + 1)}`],
      { env: secrets },
    );
    started.push(host);
    const bare = await startServer<BareOidc>('bare-oidc.ts');
    started.push(bare);
    // PGlite is one process's: the durable bare provider gets its own copy of the bench database.
    const bareDb = db.kind === 'pglite' ? await db.copy() : db;
    const durable = await startServer<BareOidc>('bare-oidc.ts', bareDb.args);
    started.push(durable);
    const refresh = host.info.refresh!;
    const hostTokens = [...refresh.tokens];
    const results = await loadRounds(
      `P2 (${databaseName(options)})`,
      [
        {
          name: 'host',
          spec: () => ({
            url: `${host.info.url}/oauth/token`,
            method: 'POST',
            headers: { authorization: basic(refresh.clientId, refresh.clientSecret), 'content-type': FORM },
            refresh: { tokens: hostTokens.splice(0, perRound) },
          }),
        },
        { name: 'bare', spec: () => bareSpec(bare.info, perRound) },
        { name: 'bare with a database adapter', spec: () => bareSpec(durable.info, perRound) },
      ],
      options,
    );
    const [viaHost, viaBare, viaDurable] = results.map((r) => r.map((x) => x.rps));
    const grants = (rps: number) => formatRate(rps).replace('req/s', 'grants/s');
    return [
      compareRow({
        figure: `P2 refresh grants: host ÷ bare oidc-provider (${databaseName(options)})`,
        a: viaHost!,
        b: viaBare!,
        format: grants,
        goal: { on: 'ratio', op: '>=', value: 0.5, text: '≥ 0.5' },
      }),
      printedRow({
        figure: `P2 floor: bare oidc-provider with a plain database adapter ÷ in memory (${databaseName(options)})`,
        a: viaDurable!,
        b: viaBare!,
        format: grants,
      }),
      printedRow({
        figure: `P2 refresh grants: host ÷ bare with a database adapter (${databaseName(options)})`,
        a: viaHost!,
        b: viaDurable!,
        format: grants,
      }),
    ];
  } finally {
    for (const server of started.reverse()) await server.stop();
    await db.drop();
  }
};
