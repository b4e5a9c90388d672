/**
 * The reference deployment (deploy/), driven from the outside: three `addon-kit start` processes on one PostgreSQL
 * database and Redis behind HAProxy with deploy/haproxy.cfg as it is, TLS ending at the proxy (a throwaway
 * self-signed certificate), the template integrator beside them. Every request of the checks goes through the
 * balancer; the database is read only to count what the requests left there. PostgreSQL only (several hosts share a
 * database only there): skipped on the PGlite run, so it runs once per CI run.
 */
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createIntegrator,
  DEVELOPMENT_DEFAULTS,
  openIntegratorDatabase,
  resolveIntegratorConfig,
  type Database as IntegratorDatabase,
  type Integrator,
} from '@addon-kit/integrator-template';
import {
  CSRF_FORM_FIELD,
  CSRF_HEADER,
  FETCH_HEADER,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
} from '@addon-kit/sdk/protocol';
import { authorizeInBrowser, Browser } from '#integrator/test/support.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { runCli, startCli } from '../support/cli.ts';
import { TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET, TEST_USER_AGENT } from '../support/constants.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { prepareHaproxy, type RunningHaproxy } from '../support/haproxy.ts';
import { httpsClient, type HttpsClient } from '../support/https-client.ts';
import { TestBrowser } from '../support/oauth-browser.ts';
import { runAuthorization } from '../support/oauth-flow.ts';
import { freePort } from '../support/ports.ts';

const MIGRATIONS = fileURLToPath(new URL('../../host/db/migrations/', import.meta.url));
const PASSWORD = 'load-balanced-pw';
const KEYS = `${TEST_ENCRYPTION_KEY.id}:${TEST_ENCRYPTION_KEY.key}`;
/** The integrator's access tokens live 305 s and the hosts refresh 300 s ahead: a token is due 5 s after issue. */
const INTEGRATOR_TOKEN_SECONDS = 305;

interface HostProcess {
  name: string;
  port: number;
  sandboxPort: number;
  metricsPort: number;
  dataDir: string;
  child: ChildProcessWithoutNullStreams;
}

let tmp: string;
let databaseUrl: string;
let db: Database;
let baseUrl: string;
let sandboxUrl: string;
let client: HttpsClient;
let haproxy: RunningHaproxy | undefined;
let hostEnv: NodeJS.ProcessEnv;
const hosts: HostProcess[] = [];
const stray: ChildProcess[] = [];
let integratorServer: Server;
let integrator: Integrator;
let integratorDb: IntegratorDatabase;
let integratorUrl: string;
/** What the integrator saw: refresh grants, and the headers of each API call. */
const integratorSaw = { refreshGrants: 0, apiHeaders: [] as Record<string, unknown>[] };
/** The X-Served-By of every answer the handshake browser got, in order. */
const servedBy: { path: string; host: string | null }[] = [];
let startedTogether: { stderr: string }[] = [];

async function startHost(name: string, ports: Omit<HostProcess, 'name' | 'child' | 'dataDir'>, dataDir: string) {
  const started = await startCli(
    [
      'start',
      '--no-demo',
      '--port',
      String(ports.port),
      '--sandbox-port',
      String(ports.sandboxPort),
      '--data-dir',
      dataDir,
      '--database-url',
      databaseUrl,
      '--demo-password',
      PASSWORD,
    ],
    /^admin@other\.test \/ .*$/m,
    { ...hostEnv, ADDON_KIT_METRICS_PORT: String(ports.metricsPort) },
  );
  const host: HostProcess = { name, ...ports, dataDir, child: started.child };
  return { host, stderr: started.stderr };
}

async function waitFor(what: string, check: () => Promise<boolean>, seconds = 60): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  child.removeAllListeners('close');
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  child.kill(signal);
  return exited;
}

/** A personal access token of the admin, as an Authorization header (the CLI writes it to the database). */
async function patFor(name: string): Promise<string> {
  const pat = await runCli([
    'pat',
    'create',
    '--database-url',
    databaseUrl,
    '--data-dir',
    hosts[0]!.dataDir,
    '--email',
    'admin@demo.test',
    '--name',
    name,
    '--json',
  ]);
  const { client_id, secret } = JSON.parse(pat.stdout) as { client_id: string; secret: string };
  return `Basic ${Buffer.from(`${client_id}:${secret}`).toString('base64')}`;
}

const api = (authorization: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  client.send(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization,
      'user-agent': TEST_USER_AGENT,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

/** The sum of one series over the three hosts' metrics ports. */
async function metricAcrossHosts(series: string): Promise<number> {
  let total = 0;
  for (const host of hosts) {
    const text = await (await fetch(`http://127.0.0.1:${host.metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    total += line ? Number(line.slice(series.length + 1)) : 0;
  }
  return total;
}

describe.skipIf(!process.env.DATABASE_URL)('the reference deployment [three hosts behind HAProxy]', () => {
  let session: TestBrowser;
  let installation: string;
  let csrf: string;
  let demoPerson: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'addon-kit-deploy-'));
    databaseUrl = (await createEmptyPostgresDatabase())!;
    db = await openDatabase({ databaseUrl, maxConnections: 2 });
    const balancer = await prepareHaproxy(tmp);
    client = httpsClient(balancer.ca, 32);
    baseUrl = balancer.url;
    sandboxUrl = balancer.sandboxUrl;
    const redis = await new Promise<boolean>((resolve) => {
      const probe = connect(6379, '127.0.0.1', () => {
        probe.destroy();
        resolve(true);
      });
      probe.on('error', () => resolve(false));
    });
    hostEnv = {
      ADDON_KIT_BASE_URL: baseUrl,
      ADDON_KIT_SANDBOX_URL: sandboxUrl,
      ADDON_KIT_SESSION_SECRET: TEST_SESSION_SECRET,
      ADDON_KIT_ENCRYPTION_KEYS: KEYS,
      ADDON_KIT_TRUST_PROXY: 'loopback',
      // Longer than the balancer needs to see two failed checks 250 ms apart on a busy machine.
      ADDON_KIT_DRAIN_SECONDS: '4',
      ADDON_KIT_LIST_REFRESH_INTERVAL_SECONDS: '1',
      ADDON_KIT_ADDON_SWEEP_INTERVAL_SECONDS: '0',
      ADDON_KIT_ADDON_REFRESH_LEAD_SECONDS: '300',
      ADDON_KIT_LOG_LEVEL: 'warn',
      ...(redis ? { ADDON_KIT_REDIS_URL: `redis://127.0.0.1:6379/${1 + Math.floor(Math.random() * 14)}` } : {}),
    };
    if (!redis) console.warn('the reference deployment: no Redis on 127.0.0.1:6379; the limits use PostgreSQL');

    // Three hosts started at once on the empty database.
    const ports = await Promise.all(
      ['host1', 'host2', 'host3'].map(async () => ({
        port: await freePort(),
        sandboxPort: await freePort(),
        metricsPort: await freePort(),
      })),
    );
    const started = await Promise.all(ports.map((p, i) => startHost(`host${i + 1}`, p, join(tmp, `host${i + 1}`))));
    for (const s of started) hosts.push(s.host);
    startedTogether = started.map((s) => ({ stderr: s.stderr() }));

    haproxy = await balancer.start(hosts, { checkInterval: '250ms', showBackend: true });
    await haproxy.up();

    // The template integrator, a third party on its own port; a thin layer counts its refresh grants.
    integratorServer = createHttpServer();
    await new Promise<void>((resolve) => integratorServer.listen(0, '127.0.0.1', resolve));
    integratorUrl = `http://127.0.0.1:${(integratorServer.address() as { port: number }).port}`;
    const app = JSON.parse(
      (
        await runCli(
          [
            'oauth-app',
            'create',
            '--name',
            'Load-balanced add-on',
            '--redirect-uri',
            `${integratorUrl}/addon/complete`,
            '--scopes',
            'people',
            '--json',
            '--database-url',
            databaseUrl,
            '--data-dir',
            hosts[0]!.dataDir,
          ],
          { ADDON_KIT_ENCRYPTION_KEYS: KEYS },
        )
      ).stdout,
    ) as { id: number };
    integratorDb = await openIntegratorDatabase({ dataDir: 'memory://' });
    integrator = await createIntegrator({
      config: resolveIntegratorConfig(
        {
          port: 0,
          baseUrl: integratorUrl,
          hostBaseUrl: baseUrl,
          oauthApplicationId: app.id,
          accessTokenTtlSeconds: INTEGRATOR_TOKEN_SECONDS,
          logLevel: 'silent',
        },
        {},
      ),
      db: integratorDb,
    });
    const outer = express();
    outer.post('/oauth/token', express.urlencoded({ extended: false }), (req, _res, next) => {
      if ((req.body as { grant_type?: string }).grant_type === 'refresh_token') integratorSaw.refreshGrants += 1;
      next();
    });
    outer.use('/api', (req, _res, next) => {
      integratorSaw.apiHeaders.push({ ...req.headers });
      next();
    });
    outer.use(integrator.app);
    integratorServer.on('request', outer);

    // The add-on, pushed through the balancer with the CLI (trusting the test certificate).
    await writeFile(join(tmp, 'addon.js'), 'export default function addon() {}\n');
    await writeFile(
      join(tmp, 'addon.config.json'),
      JSON.stringify({
        oauth_application_id: '${ADDON_OAUTH_APPLICATION_ID}',
        scopes: ['people'],
        ui_extensions: {
          'people.list.send_message': {
            title: 'Send a message',
            icon_url: `${integratorUrl}/icon.svg`,
            entry: 'send-message',
          },
        },
        environments: {
          development: {
            integrator_oauth: {
              authorize_url: `${integratorUrl}/oauth/authorize`,
              token_url: `${integratorUrl}/oauth/token`,
              redirect_url: `${integratorUrl}/addon/complete`,
              client_id: '${INTEGRATOR_CLIENT_ID}',
              client_secret: '${INTEGRATOR_CLIENT_SECRET}',
              scopes: ['messages'],
            },
            integrator_api: {
              base_url: integratorUrl,
              allow: [
                { method: 'GET', path: '/api/messages' },
                { method: 'POST', path: '/api/messages' },
              ],
            },
            ui_extensions: ['people.list.send_message'],
            organization_ids: [],
            ui_origins: [],
          },
        },
      }),
    );
    const [patId, patSecret] = Buffer.from((await patFor('push')).slice(6), 'base64')
      .toString()
      .split(':');
    const push = await runCli(
      [
        'addon',
        'push',
        '--env',
        'development',
        '--config',
        join(tmp, 'addon.config.json'),
        '--bundle',
        join(tmp, 'addon.js'),
        '--host',
        baseUrl,
      ],
      {
        NODE_EXTRA_CA_CERTS: balancer.caFile,
        ADDON_KIT_PAT_CLIENT_ID: patId!,
        ADDON_KIT_PAT_SECRET: patSecret!,
        ADDON_OAUTH_APPLICATION_ID: String(app.id),
        INTEGRATOR_CLIENT_ID: DEVELOPMENT_DEFAULTS.clientId,
        INTEGRATOR_CLIENT_SECRET: DEVELOPMENT_DEFAULTS.clientSecret,
      },
    );
    if (push.code !== 0) throw new Error(`addon push failed:\n${push.stdout}\n${push.stderr}`);
    demoPerson = (await db.query<{ id: string }>("SELECT id::text FROM people WHERE email = 'member@demo.test'"))
      .rows[0]!.id;
  }, 300_000);

  afterAll(async () => {
    client?.close();
    await Promise.all([...hosts.map((h) => h.child), ...stray].map((c) => stopProcess(c, 'SIGKILL')));
    await haproxy?.stop();
    if (integratorServer?.listening) {
      integratorServer.closeAllConnections();
      await new Promise<void>((resolve) => integratorServer.close(() => resolve()));
    }
    await integrator?.close();
    await integratorDb?.close();
    await db?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 60_000);

  it('applies the migrations once and seeds the demo data once when the three hosts start together', async () => {
    const migrations = (await readdir(MIGRATIONS)).filter((f) => f.endsWith('.sql')).length;
    const applied = startedTogether.filter((s) => /applied \d+ migration/.test(s.stderr)).length;
    const counts = (
      await db.query<{ migrations: number; organizations: number; lists: number; notes: number }>(
        `SELECT (SELECT count(*)::int FROM schema_migrations) AS migrations,
                (SELECT count(*)::int FROM organizations) AS organizations,
                (SELECT count(*)::int FROM lists) AS lists, (SELECT count(*)::int FROM notes) AS notes`,
      )
    ).rows[0];
    console.log(`three hosts started together: migrations applied by ${applied} process(es)`, counts);
    expect({ applied, ...counts }).toEqual({ applied: 1, migrations, organizations: 2, lists: 8, notes: 310 });
  });

  it('terminates TLS at the proxy with HSTS, for the host and the sandbox origin', async () => {
    const health = await client.send(`${baseUrl}/health`);
    expect([health.status, health.headers.get('strict-transport-security'), JSON.parse(health.body)]).toEqual([
      200,
      'max-age=31536000',
      { status: 'ok', database: 'postgres' },
    ]);
    const frame = await client.send(`${sandboxUrl}/frame.html`);
    expect([frame.status, frame.headers.get('strict-transport-security')]).toEqual([200, 'max-age=31536000']);
  });

  it('completes the six-step handshake with each step on another host than the one before', async () => {
    const recording: typeof fetch = async (input, init) => {
      const res = await client.fetch(input, init);
      const url = input instanceof Request ? input.url : input.toString();
      servedBy.push({ path: new URL(url).pathname, host: res.headers.get('x-served-by') });
      return res;
    };
    session = new TestBrowser(baseUrl, recording);
    const login = await session.submit(await session.request('/login'), {
      email: 'admin@demo.test',
      password: PASSWORD,
    });
    expect(login.status).toBe(303);
    const list = await session.request('/addons/installations', { headers: { accept: 'application/json' } });
    const listed = JSON.parse(list.body) as { data: { id: string }[]; csrf_token: string };
    installation = listed.data[0]!.id;
    csrf = listed.csrf_token;
    servedBy.length = 0;
    const start = await session.request(`/addons/installations/${installation}/authorize`, {
      form: { [CSRF_FORM_FIELD]: csrf },
      headers: { origin: baseUrl },
    });
    const completion = await runAuthorization(session, new URL(start.location!), { password: PASSWORD });
    const integratorBrowser = new Browser();
    const toAdvance = await integratorBrowser.fetch(completion.toString());
    const toIntegrator = await session.request(new URL(toAdvance.headers.get('location')!).toString());
    const callback = await authorizeInBrowser(integratorBrowser, toIntegrator.location!, DEVELOPMENT_DEFAULTS.user);
    const done = await session.request(callback.toString());
    expect(done.status).toBe(200);
    const state = await session.request(`/addons/installations/${installation}/state`, {
      headers: { accept: 'application/json' },
    });
    expect(JSON.parse(state.body)).toEqual({ state: 'ready' });
    console.log('handshake steps by host:', servedBy.map((s) => `${s.host} ${s.path}`).join(' → '));
    expect(servedBy.length).toBeGreaterThanOrEqual(6);
    expect(servedBy.every((s) => /^host[123]$/.test(s.host ?? ''))).toBe(true);
    const repeated = servedBy.filter((s, i) => i > 0 && s.host === servedBy[i - 1]!.host);
    expect(repeated).toEqual([]);
  });

  it('accepts the session on every host', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const res = await session.request(`/addons/installations/${installation}/state`, {
        headers: { accept: 'application/json' },
      });
      answers.push([res.status, res.body, res.headers.get('x-served-by')]);
    }
    expect(answers.map(([status, body]) => [status, body])).toEqual(
      Array.from({ length: 6 }, () => [200, JSON.stringify({ state: 'ready' })]),
    );
    expect(new Set(answers.map(([, , host]) => host))).toEqual(new Set(['host1', 'host2', 'host3']));
  });

  it('counts the API rate limit exactly across hosts: the 101st request in the window is 429 wherever it lands', async () => {
    const authorization = await patFor('rate limit');
    const counts: string[] = [];
    const served = new Set<string>();
    const started = Date.now();
    for (let i = 0; i < 100; i++) {
      const res = await api(authorization, '/current/v2/me');
      expect(res.status).toBe(200);
      counts.push(res.headers.get('x-pco-api-request-rate-count')!);
      served.add(res.headers.get('x-served-by')!);
    }
    const over = [];
    for (let i = 0; i < 3; i++) {
      const res = await api(authorization, '/current/v2/me');
      over.push([
        res.status,
        res.headers.get('x-served-by'),
        (JSON.parse(res.body) as { errors: { detail: string }[] }).errors[0]!.detail,
      ]);
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(counts).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    expect(served).toEqual(new Set(['host1', 'host2', 'host3']));
    expect(over.map(([status]) => status)).toEqual([429, 429, 429]);
    expect(new Set(over.map(([, host]) => host)).size).toBe(3);
    expect(over[0]![2]).toBe('Rate limit exceeded: 101 of 100 requests per 20 seconds');
  });

  it('serves a refresh storm spread over the three hosts with one refresh grant at the integrator', async () => {
    const { rows } = await db.query<{ at: Date }>('SELECT integrator_expires_at AS at FROM addon_authorizations');
    // Due 300 s before it expires (the hosts' refresh lead).
    const due = new Date(rows[0]!.at).getTime() - 299_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    const before = integratorSaw.refreshGrants;
    const proxied = await Promise.all(
      Array.from({ length: 30 }, () =>
        client.send(`${baseUrl}/addons/installations/${installation}/fetch/integrator`, {
          method: 'POST',
          headers: {
            cookie: session.jar.header(`/addons/installations/${installation}/fetch/integrator`),
            [CSRF_HEADER]: csrf,
            origin: baseUrl,
            [FETCH_HEADER]: encodeEnvelope({ method: 'GET', url: `${integratorUrl}/api/messages`, headers: [] }),
          },
        }),
      ),
    );
    const upstream = proxied.map((r) => [
      r.status,
      (decodeEnvelope(r.headers.get(UPSTREAM_HEADER)!) as { status: number }).status,
    ]);
    const grants = integratorSaw.refreshGrants - before;
    console.log(
      `refresh storm: ${proxied.length} calls over ${new Set(proxied.map((r) => r.headers.get('x-served-by'))).size} hosts, ${grants} refresh grant(s) at the integrator`,
    );
    expect(upstream).toEqual(Array.from({ length: 30 }, () => [200, 200]));
    expect(new Set(proxied.map((r) => r.headers.get('x-served-by')))).toEqual(new Set(['host1', 'host2', 'host3']));
    expect(grants).toBe(1);
  });

  it('runs each due List once, whichever host’s scheduler finds it', async () => {
    const authorization = await patFor('lists');
    const lists = (JSON.parse((await api(authorization, '/people/v2/lists')).body) as { data: { id: string }[] }).data;
    const before = await metricAcrossHosts('addon_kit_list_runs_total{trigger="scheduled",outcome="success"}');
    for (const list of lists) {
      const res = await api(authorization, `/people/v2/lists/${list.id}`, {
        method: 'PATCH',
        body: { data: { type: 'List', attributes: { auto_refresh: true, auto_refresh_frequency: 'hourly' } } },
      });
      expect(res.status).toBe(200);
    }
    const ids = lists.map((l) => l.id);
    await waitFor('the due Lists to run', async () => {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM lists WHERE id = ANY($1::bigint[]) AND refreshed_at IS NOT NULL',
        [ids],
      );
      return rows[0]!.n === ids.length;
    });
    // Three more passes of every scheduler: nothing is due any more, so nothing runs again.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const runs = (await metricAcrossHosts('addon_kit_list_runs_total{trigger="scheduled",outcome="success"}')) - before;
    console.log(`List scheduler: ${ids.length} due Lists, ${runs} scheduled runs over three hosts`);
    expect(runs).toBe(ids.length);
  });

  /** Seconds since the test file started, for the event and failure logs. */
  const t0 = Date.now();
  const clock = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

  /** Ten connections reading and writing notes through the balancer until `stop`; every failure is kept. */
  function load(authorizations: string[], tag: string) {
    const tally = {
      requests: 0,
      failures: [] as string[],
      acknowledged: [] as string[],
      unacknowledged: [] as string[],
    };
    let running = true;
    const connections = 10;
    const loops = Array.from({ length: connections }, async (_, c) => {
      for (let i = 0; running; i++) {
        const authorization = authorizations[(c + i) % authorizations.length]!;
        const started = Date.now();
        const write = i % 2 === 0;
        const text = `${tag} ${c}-${i}`;
        try {
          const res = write
            ? await api(authorization, `/people/v2/people/${demoPerson}/notes`, {
                method: 'POST',
                body: { data: { type: 'Note', attributes: { note: text } } },
              })
            : await api(authorization, '/people/v2/notes?per_page=25');
          tally.requests += 1;
          if (res.status >= 200 && res.status < 300) {
            if (write) tally.acknowledged.push((JSON.parse(res.body) as { data: { id: string } }).data.id);
          } else {
            tally.failures.push(
              `${write ? 'POST' : 'GET'} ${res.status} ${res.headers.get('x-served-by')} ${res.body.slice(0, 120)}`,
            );
            if (write) tally.unacknowledged.push(text);
          }
        } catch (error) {
          tally.requests += 1;
          tally.failures.push(
            `${clock()} ${write ? 'POST' : 'GET'} ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
          );
          if (write) tally.unacknowledged.push(text);
        }
        // Each token may make 100 requests in 20 s, so all tokens together 5 per second each; the connections
        // together stay at 80 % of that, however fast the hosts answer (a quiet machine answers in a few ms).
        const interval = (connections * 20_000) / (0.8 * 100 * authorizations.length);
        const pause = interval - (Date.now() - started);
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      }
    });
    return {
      tally,
      async stop() {
        running = false;
        await Promise.all(loops);
        return tally;
      },
    };
  }

  const found = async (ids: string[]) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes WHERE id = ANY($1::bigint[])', [ids])).rows[0]!
      .n;

  it('loses no request while all three hosts restart one after the other under load', async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => patFor(`rolling ${i}`)));
    const traffic = load(tokens, `rolling-${randomBytes(3).toString('hex')}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const exits: (number | null)[] = [];
    const events: string[] = [];
    for (const [i, host] of hosts.entries()) {
      events.push(`${clock()} SIGTERM ${host.name}`);
      exits.push(await stopProcess(host.child));
      events.push(`${clock()} ${host.name} exited`);
      const restarted = await startHost(host.name, host, host.dataDir);
      hosts[i] = restarted.host;
      events.push(`${clock()} ${host.name} started`);
      await haproxy!.up(host.name, 180);
      events.push(`${clock()} ${host.name} UP at the balancer`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const tally = await traffic.stop();
    const stored = await found(tally.acknowledged);
    console.log(
      `rolling restart: ${tally.requests} requests, ${tally.failures.length} failed, ` +
        `writes acknowledged ${tally.acknowledged.length}, found ${stored}`,
      tally.failures.slice(0, 10),
      events,
    );
    expect({ exits, failures: tally.failures, found: stored }).toEqual({
      exits: [0, 0, 0],
      failures: [],
      found: tally.acknowledged.length,
    });
  }, 900_000);

  it('keeps every acknowledged write when a host is killed under write load; retried reads succeed', async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => patFor(`kill ${i}`)));
    const tag = `killed-${randomBytes(3).toString('hex')}`;
    const traffic = load(tokens, tag);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const victim = hosts[1]!;
    await stopProcess(victim.child, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const tally = await traffic.stop();
    // The client retries its idempotent requests that failed: each succeeds on a surviving host.
    const retried = [];
    for (const failure of tally.failures.filter((f) => f.startsWith('GET'))) {
      retried.push((await api(tokens[0]!, '/people/v2/notes?per_page=25')).status);
      void failure;
    }
    const stored = await found(tally.acknowledged);
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM notes WHERE note = ANY($1::text[])',
      [tally.unacknowledged],
    );
    console.log(
      `host killed: ${tally.requests} requests, ${tally.failures.length} failed (${retried.length} reads retried), ` +
        `writes acknowledged ${tally.acknowledged.length}, found ${stored}; ` +
        `${tally.unacknowledged.length} unacknowledged writes, ${rows[0]!.n} of them in the database`,
    );
    expect(stored).toBe(tally.acknowledged.length);
    expect(retried.every((status) => status === 200)).toBe(true);
    const restarted = await startHost(victim.name, victim, victim.dataDir);
    hosts[1] = restarted.host;
    await haproxy!.up(victim.name, 180);
  }, 600_000);

  it('lets a fourth host configured only by environment variables join, accepting the others’ session cookies', async () => {
    const port = await freePort();
    const dataDir = join(tmp, 'host4');
    const fourth = await startCli(['start'], /^admin@other\.test \/ .*$/m, {
      ...hostEnv,
      ADDON_KIT_DEMO: 'false',
      ADDON_KIT_PORT: String(port),
      ADDON_KIT_SANDBOX_PORT: String(await freePort()),
      ADDON_KIT_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
    });
    stray.push(fourth.child);
    const direct = (path: string, cookie?: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        headers: { accept: 'application/json', ...(cookie ? { cookie } : {}) },
      });
    const cookie = session.jar.header(`/addons/installations/${installation}/state`);
    const withCookie = await direct(`/addons/installations/${installation}/state`, cookie);
    const without = await direct(`/addons/installations/${installation}/state`);
    expect([withCookie.status, await withCookie.json(), without.status]).toEqual([200, { state: 'ready' }, 401]);
    expect(await readdir(dataDir).catch(() => [])).not.toContain('secrets.json');
    expect(await stopProcess(fourth.child)).toBe(0);
  }, 120_000);
});
