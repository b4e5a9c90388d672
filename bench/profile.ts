/**
 * CPU profile of the host under P3, P2 and P1 load (`node --cpu-prof`): the host server runs with the profiler on,
 * the load generator (another process) loads it for a while, and the top frames by self time are printed,
 * with the same samples summed per package / source file.
 *
 *   npx tsx bench/profile.ts [--only P3,P2,P1] [--seconds 20] [--database pglite|postgres] [--keep]
 *
 * The .cpuprofile files are written to a temporary folder (kept with --keep; open them in Chrome DevTools).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchDatabase, benchSecrets, type BenchDatabase } from './runner/databases.ts';
import { runLoad, formatRate, type LoadSpec } from './runner/load.ts';
import { REPO_ROOT, startServer, type ServerProcess } from './runner/processes.ts';
import { progress } from './runner/rounds.ts';
import type { HostServerInfo } from './servers/host.ts';
import type { IntegratorServerInfo } from './servers/integrator.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Where a frame's code lives: a package under node_modules, a repository file, or node's own. */
function ownerOf(url: string): string {
  if (!url) return '(native / VM)';
  const path = url.replace(/^file:\/\//, '');
  const packages = path.lastIndexOf('node_modules/');
  if (packages >= 0) {
    const rest = path.slice(packages + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (path.startsWith('node:')) return path;
  return path.startsWith('/') ? relative(REPO_ROOT, path) : path;
}

/** The top frames by self time, and the self time summed per owner (package or file). */
export function summarize(profile: { nodes: ProfileNode[] }, top = 25): string {
  const all = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const idle = profile.nodes
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  // Shares of the busy time: idle samples (waiting for the network or the database server) are left out.
  const total = all - idle;
  const pct = (hits: number) => `${((100 * hits) / total).toFixed(1).padStart(5)} %`;
  const frames = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits || node.callFrame.functionName === '(idle)') continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${ownerOf(url)}:${lineNumber + 1}` : '';
    const frame = `${functionName || '(anonymous)'} ${where}`.trim();
    frames.set(frame, (frames.get(frame) ?? 0) + hits);
    owners.set(ownerOf(url), (owners.get(ownerOf(url)) ?? 0) + hits);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `  ${all} samples, ${((100 * idle) / all).toFixed(1)} % idle; shares below are of the busy time (start-up included)`,
    '  top frames by self time:',
    ...sorted(frames).map(([frame, hits]) => `  ${pct(hits)}  ${frame}`),
    '  self time per package / file:',
    ...sorted(owners).map(([owner, hits]) => `  ${pct(hits)}  ${owner}`),
  ].join('\n');
}

async function profileUnderLoad(
  name: string,
  host: ServerProcess<HostServerInfo>,
  spec: Omit<LoadSpec, 'seconds' | 'connections'>,
  seconds: number,
  dir: string,
): Promise<void> {
  const result = await runLoad({ ...spec, seconds, connections: 10 });
  progress(
    `${name}: ${formatRate(result.rps)} p50 ${result.p50} ms p99 ${result.p99} ms (${result.non2xx} non-2xx) under the profiler`,
  );
  await host.stop();
  const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written to ${dir}`);
  const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
  console.log(`${name}\n${summarize(profile)}\n  profile: ${join(dir, file)}\n`);
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string' },
    database: { type: 'string' },
    keep: { type: 'boolean' },
  },
});
const only = (values.only ?? 'P3,P1').toUpperCase().split(',');
const seconds = Number(values.seconds ?? 20);
const database = values.database === 'postgres' ? 'postgres' : 'pglite';
const databaseUrl = database === 'postgres' ? process.env.DATABASE_URL : undefined;
if (database === 'postgres' && !databaseUrl) throw new Error('--database postgres needs DATABASE_URL');
const secrets = benchSecrets();
const cleanup: (() => Promise<void>)[] = [];
try {
  if (only.includes('P3')) {
    const db: BenchDatabase = await createBenchDatabase({ database, databaseUrl });
    cleanup.push(() => db.drop());
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-profile-p3-'));
    if (!values.keep) cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const host = await startServer<HostServerInfo>('host.ts', [...db.args, '--scenario=notes'], {
      env: secrets,
      execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    });
    const { clientId, secret } = host.info.pat!;
    const headers = {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'user-agent': 'addon-kit-bench/1.0',
    };
    await profileUnderLoad(
      `P3 host, GET /people/v2/notes?per_page=100 (${database})`,
      host,
      { url: `${host.info.url}/people/v2/notes?per_page=100`, method: 'GET', headers },
      seconds,
      dir,
    );
  }
  if (only.includes('P2')) {
    const db = await createBenchDatabase({ database, databaseUrl });
    cleanup.push(() => db.drop());
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-profile-p2-'));
    if (!values.keep) cleanup.push(() => rm(dir, { recursive: true, force: true }));
    // Fresh refresh tokens for every connection, with spares for chains a failure breaks.
    const host = await startServer<HostServerInfo>('host.ts', [...db.args, '--scenario=refresh', '--tokens=40'], {
      env: secrets,
      execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    });
    const { clientId, clientSecret, tokens } = host.info.refresh!;
    const headers = {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    await profileUnderLoad(
      `P2 host, POST /oauth/token grant_type=refresh_token (${database})`,
      host,
      { url: `${host.info.url}/oauth/token`, method: 'POST', headers, refresh: { tokens } },
      seconds,
      dir,
    );
  }
  if (only.includes('P1')) {
    const db = await createBenchDatabase({ database, databaseUrl });
    cleanup.push(() => db.drop());
    const integratorDir = await mkdtemp(join(tmpdir(), 'addon-kit-profile-integrator-'));
    cleanup.push(() => rm(integratorDir, { recursive: true, force: true }));
    const integrator = await startServer<IntegratorServerInfo>(
      'integrator.ts',
      db.kind === 'postgres' ? db.args : [`--data-dir=${integratorDir}`],
    );
    cleanup.push(() => integrator.stop());
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-profile-p1-'));
    if (!values.keep) cleanup.push(() => rm(dir, { recursive: true, force: true }));
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
      { env: secrets, execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] },
    );
    const proxy = host.info.proxy!;
    const headers = {
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
    };
    const url = `${host.info.url}/addons/installations/${proxy.installationId}/fetch/integrator`;
    await profileUnderLoad(
      `P1 host, POST …/fetch/integrator (${database})`,
      host,
      { url, method: 'POST', headers },
      seconds,
      dir,
    );
  }
} finally {
  for (const step of cleanup.reverse()) await step();
}
