import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { openDatabase } from '#host/db/database.ts';
import { clientSecretAad } from '#host/oauth/applications.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { runCli, startCli, stopCli } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';

/** Every command gets the same storage: a fresh PGlite data dir, or a fresh PostgreSQL database. */
let dataDir: string;
let databaseUrl: string | undefined;
let storage: string[];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-cli-'));
  databaseUrl = await createEmptyPostgresDatabase();
  storage = ['--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
});

const openStorage = () => openDatabase(databaseUrl ? { databaseUrl } : { dataDir: join(dataDir, 'db') });

describe('addon-kit (bad arguments)', () => {
  it.each([
    [[], /^usage:/],
    [
      ['launch'],
      /^addon-kit: unknown command "launch"; commands: start, login, logout, seed, pat, oauth-app, webhooks, addon, create, doctor$/,
    ],
    [['start', '--port', 'abc'], /^addon-kit start: --port must be an integer from 0 to 65535, got "abc"$/],
    [['start', '--bogus'], /^addon-kit start: Unknown option '--bogus'/],
    [['seed', '--people', '-3'], /^addon-kit seed: /],
    [['pat', 'create', '--name', 'x'], /^addon-kit pat: --email is required$/],
    [['pat', 'list'], /^addon-kit pat: unknown pat action "list"; actions: create \(see addon-kit help pat\)$/],
    [
      ['addon', 'publish'],
      /^addon-kit addon: unknown addon action "publish"; actions: push, promote, build, dev \(see addon-kit help addon\)$/,
    ],
    [['addon', 'promote', 'development', 'beta', '--env', 'beta'], /^addon-kit addon: Unknown option '--env'/],
    [
      ['doctor', '--env', 'staging'],
      /^addon-kit doctor: --env must be one of development, beta, production, got "staging"$/,
    ],
    [['start', '--port'], /^addon-kit start: Option '--port <value>' argument missing$/],
    [
      ['oauth-app', 'create', '--name', 'x'],
      /^addon-kit oauth-app: --redirect-uri is required \(repeat it for several\)$/,
    ],
    [
      ['oauth-app', 'create', '--name', ' ', '--redirect-uri', 'https://a.test/cb'],
      /^addon-kit oauth-app: --name is required$/,
    ],
    [
      ['oauth-app', 'create', '--name', 'x', '--redirect-uri', 'not a url'],
      /^addon-kit oauth-app: --redirect-uri must be an absolute URL/,
    ],
    [
      ['oauth-app', 'create', '--name', 'x', '--redirect-uri', 'https://a.test/cb', '--scopes', 'people admin'],
      /^addon-kit oauth-app: unknown scope\(s\) admin;/,
    ],
  ])('exits 2 with one clear line for %j', async (args, message) => {
    const res = await runCli(args);
    expect(res.code).toBe(2);
    const output = (res.stderr || res.stdout).trim();
    expect(output).toMatch(message);
    if (args.length) expect(output.split('\n')).toHaveLength(1);
  });
});

/** Each command's flags, written out here (not read from the declarations) so a flag dropped from help is caught. */
const FLAGS: Record<string, string[]> = {
  start: [
    '--port',
    '--sandbox-port',
    '--integrator-port',
    '--no-demo',
    '--data-dir',
    '--database-url',
    '--demo-password',
    '--base-url',
    '--help',
  ],
  login: ['--host', '--no-browser', '--help'],
  logout: ['--host', '--help'],
  seed: ['--people', '--demo-password', '--data-dir', '--database-url', '--help'],
  pat: ['--email', '--name', '--json', '--data-dir', '--database-url', '--help'],
  'oauth-app': [
    '--name',
    '--redirect-uri',
    '--public',
    '--scopes',
    '--email',
    '--description',
    '--url',
    '--json',
    '--data-dir',
    '--database-url',
    '--help',
  ],
  addon: [
    ...['--env', '--config', '--bundle', '--host', '--integrator', '--no-browser', '--help'],
    ...['--config', '--host', '--no-browser', '--help'],
    ...['--entry', '--out', '--budget-kb', '--help'],
    ...['--entry', '--out', '--budget-kb', '--config', '--host', '--integrator', '--no-browser', '--help'],
  ],
  create: ['--from-registry', '--packages', '--help'],
  doctor: ['--env', '--config', '--host', '--integrator', '--username', '--password', '--json', '--help'],
  webhooks: ['--subscription', '--email', '--host', '--json', '--data-dir', '--database-url', '--help'],
};

/** The flags of the option rows of a help text, in order. */
const helpFlags = (help: string) => [...help.matchAll(/^ {2}(?:-h, )?(--[a-z-]+)/gm)].map((m) => m[1]);

describe('addon-kit help', () => {
  it.each(Object.keys(FLAGS))(
    'prints the usage and every flag of %s for "help <command>" and "<command> --help", exit 0',
    async (command) => {
      const [asked, flag, short] = await Promise.all([
        runCli(['help', command]),
        runCli([command, '--help']),
        runCli([command, '-h']),
      ]);
      expect([asked.code, asked.stderr]).toEqual([0, '']);
      expect(asked.stdout).toMatch(new RegExp(`^usage:\n  addon-kit ${command} `));
      expect(helpFlags(asked.stdout)).toEqual(FLAGS[command]);
      expect([flag.code, flag.stderr, flag.stdout]).toEqual([0, '', asked.stdout]);
      expect([short.code, short.stderr, short.stdout]).toEqual([0, '', asked.stdout]);
    },
  );

  it('prints the help of start exactly, --sandbox-port included', async () => {
    const res = await runCli(['start', '--port', '0', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(
      [
        'usage:',
        '  addon-kit start [--port 4000] [--sandbox-port P] [--integrator-port 4100] [--no-demo] [--data-dir ./.addon-kit] [--database-url postgres://…] [--demo-password P] [--base-url URL]',
        '',
        'addon-kit start: the host and the add-on sandbox origin with demo data seeded on first start, and the demo unless --no-demo',
        '  --port 4000                  TCP port of the host (default 4000, or ADDON_KIT_PORT); 0 picks free ports for all three listeners',
        "  --sandbox-port P             TCP port of the add-on sandbox origin (default the host's port + 1, or ADDON_KIT_SANDBOX_PORT)",
        '  --integrator-port 4100       TCP port of the template integrator (default 4100; 0 with --port 0)',
        '  --no-demo                    the platform alone: no demo pages, sample add-on or template integrator (also ADDON_KIT_DEMO=false)',
        '  --data-dir ./.addon-kit      data directory: the embedded database, generated secrets, the demo password (or ADDON_KIT_DATA_DIR)',
        '  --database-url postgres://…  use this PostgreSQL server instead of the embedded PGlite (or DATABASE_URL)',
        '  --demo-password P            password of the demo logins when the demo data is first seeded, at least 8 characters (default: generated; printed at start)',
        '  --base-url URL               public URL of the host (default http://localhost:<port>, or ADDON_KIT_BASE_URL)',
        '  -h, --help                   print this help',
        '',
      ].join('\n'),
    );
  });

  it('prints the help of an action for "<command> <action> --help" [pat create]', async () => {
    const [action, command] = await Promise.all([
      runCli(['pat', 'create', '--email', 'x@demo.test', '--help']),
      runCli(['help', 'pat']),
    ]);
    expect([action.code, action.stdout]).toEqual([0, command.stdout]);
  });

  it('prints every command\'s usage line for "--help" and "help", exit 0, and for no arguments, exit 2', async () => {
    const [flag, word, none] = await Promise.all([runCli(['--help']), runCli(['help']), runCli([])]);
    const lines = flag.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('  addon-kit ')).map((l) => l.split(' ').slice(3, 5).join(' '))).toEqual([
      'start [--port',
      'login [--host',
      'logout [--host',
      'seed [--people',
      'pat create',
      'oauth-app create',
      'webhooks trigger',
      'addon push',
      'addon promote',
      'addon build',
      'addon dev',
      'create integrator|addon',
      'doctor --env',
    ]);
    expect(lines.at(-2)).toBe('addon-kit help <command> (or addon-kit <command> --help) prints its options.');
    expect([flag.code, word.code, none.code]).toEqual([0, 0, 2]);
    expect([word.stdout, none.stdout]).toEqual([flag.stdout, flag.stdout]);
  });

  it.each([
    [
      ['help', 'launch'],
      'addon-kit help: unknown command "launch"; commands: start, login, logout, seed, pat, oauth-app, webhooks, addon, create, doctor',
    ],
    [['help', 'start', 'now'], 'addon-kit help: unexpected argument: now'],
  ])('exits 2 with one line for %j [usage mistake]', async (args, line) => {
    const res = await runCli(args);
    expect([res.code, res.stdout, res.stderr]).toEqual([2, '', `${line}\n`]);
  });
});

describe('addon-kit seed, pat create, oauth-app create', () => {
  it('seeds the demo data once, then only tops up [idempotent]', async () => {
    const first = await runCli(['seed', '--people', '40', ...storage]);
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe('seeded the demo data (60 people)');
    const again = await runCli(['seed', '--people', '40', ...storage]);
    expect(again.stdout.trim()).toBe('demo data present; added 0 people');
    const more = await runCli(['seed', '--people', '45', ...storage]);
    expect(more.stdout.trim()).toBe('demo data present; added 5 people');
  }, 90_000);

  it('creates a personal access token and prints it once as JSON [--json]', async () => {
    const res = await runCli([
      'pat',
      'create',
      '--email',
      'admin@demo.test',
      '--name',
      'ci script',
      '--json',
      ...storage,
    ]);
    expect(res.code).toBe(0);
    const token = JSON.parse(res.stdout) as { id: string; name: string; client_id: string; secret: string };
    expect(Object.keys(token)).toEqual(['id', 'name', 'client_id', 'secret']);
    expect(token.name).toBe('ci script');
    expect(token.secret).toMatch(/^[0-9a-f]{64}$/);
    const db = await openStorage();
    try {
      const { rows } = await db.query<{ secret_hash: string; email: string }>(
        'SELECT t.secret_hash, p.email FROM personal_access_tokens t JOIN people p ON p.id = t.person_id WHERE t.client_id = $1',
        [token.client_id],
      );
      expect(rows[0]!.email).toBe('admin@demo.test');
      expect(rows[0]!.secret_hash).not.toContain(token.secret);
    } finally {
      await db.close();
    }
  });

  it('refuses an unknown e-mail with exit 2', async () => {
    const res = await runCli(['pat', 'create', '--email', 'nobody@demo.test', '--name', 'x', ...storage]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe('addon-kit pat: no person with the e-mail nobody@demo.test');
  });

  it('creates a confidential OAuth application with a sealed secret, and a public one without [--public]', async () => {
    const confidential = await runCli([
      'oauth-app',
      'create',
      '--name',
      'Sync',
      '--redirect-uri',
      'https://sync.test/cb',
      '--redirect-uri',
      'http://localhost:9999/cb',
      '--scopes',
      'people api',
      '--json',
      ...storage,
    ]);
    expect(confidential.code).toBe(0);
    const app = JSON.parse(confidential.stdout) as { id: number; client_id: string; client_secret: string };
    expect(Number.isInteger(app.id)).toBe(true);
    const pub = JSON.parse(
      (
        await runCli([
          'oauth-app',
          'create',
          '--name',
          'Mobile',
          '--redirect-uri',
          'https://m.test/cb',
          '--public',
          '--json',
          ...storage,
        ])
      ).stdout,
    );
    expect(Object.keys(pub)).toEqual(['id', 'client_id']);
    const db = await openStorage();
    try {
      const { rows } = await db.query<{
        redirect_uris: string[];
        add_on_scopes: string;
        client_secret_encrypted: string;
        public: boolean;
      }>('SELECT redirect_uris, add_on_scopes, client_secret_encrypted, public FROM oauth_applications WHERE id = $1', [
        app.id,
      ]);
      expect(rows[0]).toMatchObject({
        redirect_uris: ['https://sync.test/cb', 'http://localhost:9999/cb'],
        add_on_scopes: 'people api',
        public: false,
      });
      expect(rows[0]!.client_secret_encrypted).not.toContain(app.client_secret);
      const { readFile } = await import('node:fs/promises');
      const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as {
        encryptionKeys: { id: string; key: string }[];
      };
      expect(
        createSecretBox(secrets.encryptionKeys).open(rows[0]!.client_secret_encrypted, clientSecretAad(app.client_id)),
      ).toBe(app.client_secret);
    } finally {
      await db.close();
    }
  });
});

/** One answer of /health while `start` starts. */
interface HealthAnswer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/**
 * Asks `url` every 20 ms until stopped, keeping each answer; a refused connection (not listening yet) is skipped,
 * a request unanswered for 5 s is kept as status 0 (a hang).
 */
function pollHealth(url: string): { answers: Promise<HealthAnswer[]>; stop: () => void } {
  let stopped = false;
  const answers = (async () => {
    const seen: HealthAnswer[] = [];
    while (!stopped) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
      } catch (error) {
        if ((error as Error).name === 'TimeoutError')
          seen.push({ status: 0, retryAfter: null, body: 'no answer within 5 s' });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return seen;
  })();
  return { answers, stop: () => (stopped = true) };
}

describe('addon-kit start', () => {
  let startDir: string;
  let startDb: string | undefined;
  beforeAll(async () => {
    startDir = await mkdtemp(join(tmpdir(), 'addon-kit-start-'));
    startDb = await createEmptyPostgresDatabase();
  });
  const args = () => ['start', '--data-dir', startDir, ...(startDb ? ['--database-url', startDb] : [])];
  const READY = /^admin@other\.test \/ .*$/m;

  it('seeds on first start, prints the URL and each demo login as "email / password", and serves /health and /login [cwd outside the repository]', async () => {
    const port = await freePort();
    const health = pollHealth(`http://localhost:${port}/health`);
    // Run from outside the repository: the pages must still compile with the repository's tsconfig (preact).
    const ports = [
      '--port',
      String(port),
      '--sandbox-port',
      String(await freePort()),
      '--integrator-port',
      String(await freePort()),
    ];
    const run = await startCli(
      [...args(), ...ports, '--demo-password', 'first-start-pw'],
      READY,
      {},
      { cwd: startDir },
    ).finally(health.stop);
    try {
      const url = /listening on (http:\/\/\S+)/.exec(run.stdout())![1]!;
      expect(url).toBe(`http://localhost:${port}`);
      expect(run.stdout()).toContain(
        'admin@demo.test / first-start-pw\neditor@demo.test / first-start-pw\nmember@demo.test / first-start-pw\nadmin@other.test / first-start-pw',
      );
      // While it started (listening, the apps not attached yet) /health answered at once: 503 starting, then 200.
      const database = startDb ? 'postgres' : 'pglite';
      const answers = await health.answers;
      const starting = answers.filter((a) => a.status === 503);
      expect(starting.length).toBeGreaterThan(0);
      expect(new Set(starting.map((a) => JSON.stringify(a)))).toEqual(
        new Set([JSON.stringify({ status: 503, retryAfter: '1', body: { status: 'starting', database } })]),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses).toEqual([...starting.map(() => 503), ...statuses.slice(starting.length).map(() => 200)]);
      const ready = await fetch(`${url}/health`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', database });
      const login = await fetch(`${url}/login`);
      expect([login.status, login.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect(await login.text()).toContain('<input id="email" type="email" name="email"');
      expect(run.stderr()).toContain('seeding demo data (first start)');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  }, 90_000);

  it('keeps the data and the passwords on restart, ignoring a new --demo-password [restart]', async () => {
    const run = await startCli([...args(), '--port', '0', '--demo-password', 'second-start-pw'], READY);
    try {
      expect(run.stdout()).toContain('admin@demo.test / first-start-pw');
      expect(run.stderr()).not.toContain('seeding demo data');
      expect(run.stderr()).toContain('--demo-password applies only when the demo data is first seeded');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  }, 90_000);
});

afterAll(() => {});
