/**
 * P1: `authenticatedIntegratorFetch` through the host proxy ÷ the same call straight to the integrator.
 * A: `POST /addons/installations/{id}/fetch/integrator` as the browser broker sends it (session cookie,
 * X-CSRF-Token, exact Origin, X-Addon-Fetch for `GET /api/messages`); B: `GET /api/messages` on the
 * template integrator (its own process) with the same bearer token the vault holds. Goal ≥ 0.8.
 * Also printed: the floor of a proxy on this stack (bench/servers/bare-proxy.ts: Express relaying the same call
 * over keep-alive, nothing else) ÷ direct — the most any proxy process in front of the integrator reaches here —
 * and the host's proxy ÷ that floor.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseName, type Benchmark } from './runner/context.ts';
import { createBenchDatabase } from './runner/databases.ts';
import { formatRate, loadRounds } from './runner/load.ts';
import { startServer, type ServerProcess } from './runner/processes.ts';
import { compareRow, printedRow } from './runner/table.ts';
import type { HostServerInfo } from './servers/host.ts';
import type { IntegratorServerInfo } from './servers/integrator.ts';

const ACCEPT: [string, string][] = [['accept', 'application/json']];

const printed = (figure: string, a: number[], b: number[]) => printedRow({ figure, a, b, format: formatRate });

export const runP1: Benchmark = async ({ options, secrets }) => {
  const db = await createBenchDatabase(options);
  const integratorDir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-integrator-'));
  const started: ServerProcess<unknown>[] = [];
  try {
    const integratorArgs = db.kind === 'postgres' ? db.args : [`--data-dir=${integratorDir}`];
    const integrator = await startServer<IntegratorServerInfo>('integrator.ts', integratorArgs);
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
      { env: secrets },
    );
    started.push(host);
    const bareProxy = await startServer<{ url: string }>('bare-proxy.ts', [
      `--upstream=${integratorUrl}/api/messages`,
      `--token=${accessToken}`,
    ]);
    started.push(bareProxy);
    const proxy = host.info.proxy!;
    const proxyUrl = `${host.info.url}/addons/installations/${proxy.installationId}/fetch/integrator`;
    const proxyHeaders = {
      cookie: proxy.cookie,
      'x-csrf-token': proxy.csrf,
      origin: proxy.origin,
      'x-addon-fetch': encodeURIComponent(
        JSON.stringify({ method: 'GET', url: `${integratorUrl}/api/messages`, headers: ACCEPT }),
      ),
    };
    // The proxy relays an upstream 401 as a 200: check once that the upstream itself answers 200.
    const check = await fetch(proxyUrl, { method: 'POST', headers: proxyHeaders });
    const upstream = check.headers.get('x-addon-upstream');
    if (
      check.status !== 200 ||
      !upstream ||
      (JSON.parse(decodeURIComponent(upstream)) as { status?: unknown }).status !== 200
    ) {
      throw new Error(`the proxied call answered ${check.status} ${upstream ?? (await check.text())}`);
    }
    await check.arrayBuffer();
    const results = await loadRounds(
      `P1 (${databaseName(options)})`,
      [
        {
          name: 'proxy',
          spec: () => ({ url: proxyUrl, method: 'POST', headers: proxyHeaders }),
        },
        {
          name: 'direct',
          spec: () => ({
            url: `${integratorUrl}/api/messages`,
            method: 'GET',
            headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
          }),
        },
        {
          name: 'bare proxy',
          spec: () => ({ url: `${bareProxy.info.url}/relay`, method: 'POST', headers: {} }),
        },
      ],
      options,
    );
    const [viaProxy, direct, floor] = results.map((r) => r.map((x) => x.rps));
    return [
      compareRow({
        figure: `P1 integrator call: proxy ÷ direct (${databaseName(options)})`,
        a: viaProxy!,
        b: direct!,
        format: formatRate,
        goal: { on: 'ratio', op: '>=', value: 0.8, text: '≥ 0.8' },
      }),
      printed(`P1 floor: bare Express relay ÷ direct (${databaseName(options)})`, floor!, direct!),
      printed(`P1 integrator call: proxy ÷ bare Express relay (${databaseName(options)})`, viaProxy!, floor!),
    ];
  } finally {
    for (const server of started.reverse()) await server.stop();
    await db.drop();
    await rm(integratorDir, { recursive: true, force: true });
  }
};
