import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '@addon-kit/host/internal/crypto/secret-box.ts';
import { openDatabase } from '@addon-kit/host/internal/db/database.ts';
import { clientSecretAad } from '@addon-kit/host/internal/oauth/applications.ts';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { runCli, startCli, stopCli } from '../support/cli.ts';

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
    [['launch'], /^addon-kit: unknown command "launch"; commands: start, seed, pat, oauth-app, addon, create, doctor$/],
    [['start', '--port', 'abc'], /^addon-kit start: --port must be an integer from 0 to 65535, got "abc"$/],
    [['start', '--bogus'], /^addon-kit start: Unknown option '--bogus'/],
    [['seed', '--people', '-3'], /^addon-kit seed: /],
    [['pat', 'create', '--name', 'x'], /^addon-kit pat: --email is required$/],
    [['pat', 'list'], /^addon-kit pat: unknown pat action "list"/],
    [['oauth-app', 'create', '--name', 'x'], /^addon-kit oauth-app: --redirect-uri is required/],
    [['oauth-app', 'create', '--name', 'x', '--redirect-uri', 'not a url'], /^addon-kit oauth-app: --redirect-uri must be an absolute URL/],
    [['oauth-app', 'create', '--name', 'x', '--redirect-uri', 'https://a.test/cb', '--scopes', 'people admin'], /^addon-kit oauth-app: unknown scope\(s\) admin;/],
  ])('exits 2 with one clear line for %j', async (args, message) => {
    const res = await runCli(args as string[]);
    expect(res.code).toBe(2);
    const output = (res.stderr || res.stdout).trim();
    expect(output).toMatch(message);
    if (args.length) expect(output.split('\n')).toHaveLength(1);
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
  });

  it('creates a personal access token and prints it once as JSON [--json]', async () => {
    const res = await runCli(['pat', 'create', '--email', 'admin@demo.test', '--name', 'ci script', '--json', ...storage]);
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
    const confidential = await runCli(['oauth-app', 'create', '--name', 'Sync', '--redirect-uri', 'https://sync.test/cb', '--redirect-uri', 'http://localhost:9999/cb', '--scopes', 'people api', '--json', ...storage]);
    expect(confidential.code).toBe(0);
    const app = JSON.parse(confidential.stdout) as { id: number; client_id: string; client_secret: string };
    expect(Number.isInteger(app.id)).toBe(true);
    const pub = JSON.parse((await runCli(['oauth-app', 'create', '--name', 'Mobile', '--redirect-uri', 'https://m.test/cb', '--public', '--json', ...storage])).stdout);
    expect(Object.keys(pub)).toEqual(['id', 'client_id']);
    const db = await openStorage();
    try {
      const { rows } = await db.query<{ redirect_uris: string[]; add_on_scopes: string; client_secret_encrypted: string; public: boolean }>(
        'SELECT redirect_uris, add_on_scopes, client_secret_encrypted, public FROM oauth_applications WHERE id = $1',
        [app.id],
      );
      expect(rows[0]).toMatchObject({ redirect_uris: ['https://sync.test/cb', 'http://localhost:9999/cb'], add_on_scopes: 'people api', public: false });
      expect(rows[0]!.client_secret_encrypted).not.toContain(app.client_secret);
      const { readFile } = await import('node:fs/promises');
      const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { encryptionKeys: { id: string; key: string }[] };
      expect(createSecretBox(secrets.encryptionKeys).open(rows[0]!.client_secret_encrypted, clientSecretAad(app.client_id))).toBe(app.client_secret);
    } finally {
      await db.close();
    }
  });
});

describe('addon-kit start', () => {
  let startDir: string;
  let startDb: string | undefined;
  beforeAll(async () => {
    startDir = await mkdtemp(join(tmpdir(), 'addon-kit-start-'));
    startDb = await createEmptyPostgresDatabase();
  });
  const args = () => ['start', '--port', '0', '--data-dir', startDir, ...(startDb ? ['--database-url', startDb] : [])];

  it('seeds on first start, prints the URL and each demo login as "email / password", and serves /health', async () => {
    const run = await startCli([...args(), '--demo-password', 'first-start-pw'], /^admin@other\.test \/ .*$/m);
    try {
      const url = /listening on (http:\/\/\S+)/.exec(run.stdout())![1]!;
      expect(run.stdout()).toContain('admin@demo.test / first-start-pw\neditor@demo.test / first-start-pw\nmember@demo.test / first-start-pw\nadmin@other.test / first-start-pw');
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', database: startDb ? 'postgres' : 'pglite' });
      expect(run.stderr()).toContain('seeding demo data (first start)');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  });

  it('keeps the data and the passwords on restart, ignoring a new --demo-password [restart]', async () => {
    const run = await startCli([...args(), '--demo-password', 'second-start-pw'], /^admin@other\.test \/ .*$/m);
    try {
      expect(run.stdout()).toContain('admin@demo.test / first-start-pw');
      expect(run.stderr()).not.toContain('seeding demo data');
      expect(run.stderr()).toContain('--demo-password applies only when the demo data is first seeded');
    } finally {
      expect(await stopCli(run.child)).toBe(0);
    }
  });
});

afterAll(() => {});
