/**
 * P2: refresh grants per second at the host's `POST /oauth/token` ÷ bare oidc-provider (same version,
 * in-memory adapter, bench/servers/bare-oidc.ts). Every request spends a refresh token never used before:
 * each connection starts from fresh tokens and goes on with the rotated one it gets back. Goal ≥ 0.5.
 */
import { databaseName, type Benchmark } from './runner/context.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { compareRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';

const FORM = 'application/x-www-form-urlencoded';

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
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
    const bare = await startServer<{ url: string; clientId: string; clientSecret: string }>('bare-oidc.ts');
    started.push(bare);
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
        {
          name: 'bare',
          spec: async () => {
            const issued = await fetch(`${bare.info.url}/bench/issue?count=${perRound}`, { method: 'POST' });
            const { tokens } = (await issued.json()) as { tokens: string[] };
            return {
              url: `${bare.info.url}/token`,
              method: 'POST',
              headers: { authorization: basic(bare.info.clientId, bare.info.clientSecret), 'content-type': FORM },
              refresh: { tokens },
            };
          },
        },
      ],
      options,
    );
    const [viaHost, viaBare] = results.map((r) => r.map((x) => x.rps));
    return [
      compareRow({
        figure: `P2 refresh grants: host ÷ bare oidc-provider (${databaseName(options)})`,
        a: viaHost!,
        b: viaBare!,
        format: (rps) => formatRate(rps).replace('req/s', 'grants/s'),
        goal: { on: 'ratio', op: '>=', value: 0.5, text: '≥ 0.5' },
      }),
    ];
  } finally {
    for (const server of started.reverse()) await server.stop();
    await db.drop();
  }
};
