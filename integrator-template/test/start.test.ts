import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../store/sql.ts';
import { DEVELOPMENT_DEFAULTS, IntegratorConfigError, resolveIntegratorConfig } from '../config.ts';
import { startIntegrator } from '../server.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('resolveIntegratorConfig()', () => {
  it('reports every problem at once with its path [several errors]', () => {
    let error: unknown;
    try {
      resolveIntegratorConfig(
        {
          baseUrl: 'not a url',
          port: -1,
          secret: 'short',
          clients: [{ client_id: '', client_secret: 'x', redirect_uris: ['nope'] }],
          exchangeHostCode: true,
        },
        {},
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IntegratorConfigError);
    expect((error as IntegratorConfigError).problems).toEqual([
      'port: Too small: expected number to be >=0',
      'baseUrl: Invalid URL',
      'secret: must be at least 32 characters',
      'clients.0.client_id: Too small: expected string to have >=1 characters',
      'clients.0.client_secret: must be at least 16 characters',
      'clients.0.redirect_uris.0: Invalid URL',
      'hostClient: is required when exchangeHostCode is true',
    ]);
  });

  it('registers the host with the development credentials and its step-5 callback [defaults]', () => {
    const config = resolveIntegratorConfig({ oauthApplicationId: 3 }, {});
    expect(config.clients).toEqual([
      {
        client_id: 'addon-kit-host',
        client_secret: 'development-integrator-secret',
        redirect_uris: ['http://localhost:4000/addons/authorizations/3'],
        scopes: [],
      },
    ]);
    expect(config.serviceName).toBe('Template Integrator');
    expect(config.users).toEqual([DEVELOPMENT_DEFAULTS.user]);
    expect([
      config.accessTokenTtlSeconds,
      config.refreshGraceSeconds,
      config.codeTtlSeconds,
      config.sessionCookieName,
    ]).toEqual([3600, 30, 60, 'integrator_session']);
  });

  it('reads INTEGRATOR_* variables [environment]', () => {
    const config = resolveIntegratorConfig(
      {},
      {
        INTEGRATOR_CLIENT_ID: 'cid',
        INTEGRATOR_CLIENT_SECRET: 'a-secret-of-enough-length',
        INTEGRATOR_HOST_BASE_URL: 'https://host.example/',
        INTEGRATOR_OAUTH_APPLICATION_ID: '42',
        INTEGRATOR_ACCESS_TOKEN_TTL: '900',
        INTEGRATOR_EXCHANGE_HOST_CODE: 'true',
        INTEGRATOR_HOST_CLIENT_ID: 'hid',
        INTEGRATOR_HOST_CLIENT_SECRET: 'hsecret',
        INTEGRATOR_SERVICE_NAME: 'Parcel Post',
        INTEGRATOR_ADDON_NAME: 'Send Message',
        INTEGRATOR_HOST_NAME: 'Example Host',
      },
    );
    expect(config.clients[0]).toMatchObject({
      client_id: 'cid',
      client_secret: 'a-secret-of-enough-length',
      redirect_uris: ['https://host.example/addons/authorizations/42'],
      name: 'Send Message',
      host_name: 'Example Host',
    });
    expect(config.serviceName).toBe('Parcel Post');
    expect([config.hostBaseUrl, config.accessTokenTtlSeconds, config.exchangeHostCode, config.hostClient]).toEqual([
      'https://host.example',
      900,
      true,
      { clientId: 'hid', clientSecret: 'hsecret' },
    ]);
  });

  it('refuses the development credentials [production]', () => {
    expect(() =>
      resolveIntegratorConfig(
        {
          environment: 'production',
          oauthApplicationId: 1,
          secret: DEVELOPMENT_DEFAULTS.secret,
          users: [DEVELOPMENT_DEFAULTS.user],
        },
        {},
      ),
    ).toThrow(
      expect.objectContaining({
        problems: [
          'secret: the development default is refused in production',
          'clients.0.client_secret: the development default is refused in production',
          'users.0.password: the development default is refused in production',
        ],
      }),
    );
  });

  it('requires the host credentials when exchanging [exchangeHostCode]', () => {
    expect(() => resolveIntegratorConfig({ oauthApplicationId: 1, exchangeHostCode: true }, {})).toThrow(
      expect.objectContaining({ problems: ['hostClient: is required when exchangeHostCode is true'] }),
    );
  });
});

describe('startIntegrator()', () => {
  it('listens, serves the flow and keeps its PGlite database in <dataDir>/integrator [dataDir]', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'integrator-'));
    dirs.push(dataDir);
    const running = await startIntegrator({
      port: 0,
      oauthApplicationId: 5,
      dataDir,
      logLevel: 'silent',
      env: {},
      databaseUrl: undefined,
    });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(running.db.kind).toBe('pglite');
      expect((await readdir(join(dataDir, 'integrator'))).length).toBeGreaterThan(0);
      const res = await fetch(`${running.url}/oauth/authorize?client_id=addon-kit-host`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(running.urls).toEqual({
        authorize: 'http://localhost:4200/oauth/authorize',
        token: 'http://localhost:4200/oauth/token',
        redirect: 'http://localhost:4200/addon/complete',
        apiBase: 'http://localhost:4200',
        webhook: 'http://localhost:4200/webhooks/addon-kit',
      });
    } finally {
      await running.close();
    }
  }, 60_000);

  it.runIf(process.env.DATABASE_URL)('creates and migrates its own schema on PostgreSQL [databaseUrl]', async () => {
    const url = process.env.DATABASE_URL!;
    const schema = `integrator_start_${randomBytes(4).toString('hex')}`;
    const running = await startIntegrator({
      port: 0,
      baseUrl: 'http://127.0.0.1:1',
      oauthApplicationId: 5,
      databaseUrl: url,
      databaseSchema: schema,
      logLevel: 'silent',
      env: {},
    });
    const admin = await openPostgres(url, undefined, 1);
    try {
      const { rows } = await admin.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      expect(rows.map((r) => r.table_name)).toEqual([
        'access_tokens',
        'addon_kit_events',
        'authorization_codes',
        'message_recipients',
        'messages',
        'refresh_tokens',
        'schema_migrations',
        'token_families',
        'users',
      ]);
      expect(running.db.kind).toBe('postgres');
      expect((await fetch(`${running.url}/login`)).status).toBe(200);
    } finally {
      await running.close();
      await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    }
  });
});

describe('npm start (main.ts)', () => {
  it('says in one line that the port is busy and exits 2, no stack trace [EADDRINUSE]', async () => {
    const { createServer } = await import('node:net');
    const { spawn } = await import('node:child_process');
    const { createRequire } = await import('node:module');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const dataDir = await mkdtemp(join(tmpdir(), 'integrator-busy-'));
    dirs.push(dataDir);
    try {
      const tsx = createRequire(import.meta.url).resolve('tsx/cli');
      const child = spawn(process.execPath, [tsx, 'main.ts'], {
        cwd: new URL('..', import.meta.url),
        env: {
          ...process.env,
          INTEGRATOR_PORT: String(port),
          INTEGRATOR_DATA_DIR: dataDir,
          INTEGRATOR_DATABASE_URL: '',
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.split('\n').filter((l) => l && !l.includes('Unsupported runtime'))).toEqual([
        `template integrator: cannot listen on 127.0.0.1:${port} (the port is in use); choose another port with INTEGRATOR_PORT (and INTEGRATOR_BASE_URL)`,
      ]);
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  }, 60_000);
});
