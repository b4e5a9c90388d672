/**
 * Every CLI command beside a running `addon-kit start`: on the embedded database, which only one process may open,
 * `pat create`, `oauth-app create` and `seed` are run by the running host (its CLI channel, a socket in the data
 * directory readable by its owner only); on PostgreSQL they open their own connection. A command run where there is
 * no data directory says where it looked and creates nothing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { runCli, startCli, stopCli, type RunningCli } from '../support/cli.ts';

let dataDir: string;
let databaseUrl: string | undefined;
let storage: string[];
let host: RunningCli;
let hostUrl: string;

beforeAll(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), 'addon-kit-beside-')), '.addon-kit');
  databaseUrl = await createEmptyPostgresDatabase();
  storage = ['--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
  host = await startCli(
    ['start', '--port', '0', '--no-demo', '--demo-password', 'beside-password', ...storage],
    /^addon-kit host listening on (\S+) /m,
  );
  hostUrl = host.match[1]!;
}, 180_000);
afterAll(async () => {
  if (host) expect(await stopCli(host.child)).toBe(0);
  // The channel's socket goes with the host.
  expect(existsSync(join(dataDir, 'cli.sock'))).toBe(false);
});

describe('CLI commands while start runs', () => {
  it('creates a personal access token the running host accepts at once [pat create]', async () => {
    const res = await runCli(['pat', 'create', '--email', 'admin@demo.test', '--name', 'beside', '--json', ...storage]);
    expect([res.code, res.stderr.includes('in use by process')]).toEqual([0, false]);
    if (!databaseUrl)
      expect(res.stderr).toContain(
        'addon-kit: a running addon-kit start holds this data directory; it runs the command',
      );
    const token = JSON.parse(res.stdout) as { client_id: string; secret: string };
    const me = await fetch(`${hostUrl}/current/v2/me`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`,
        'user-agent': 'beside/1.0',
      },
    });
    expect(me.status).toBe(200);
  }, 60_000);

  it('creates an OAuth application, tops up the demo data and refuses a second start [oauth-app, seed, start]', async () => {
    const app = await runCli([
      'oauth-app',
      'create',
      '--name',
      'Beside',
      '--redirect-uri',
      'https://beside.test/cb',
      '--json',
      ...storage,
    ]);
    expect(app.code).toBe(0);
    expect(Object.keys(JSON.parse(app.stdout) as object)).toEqual(['id', 'client_id', 'client_secret']);
    const seeded = await runCli(['seed', '--people', '30', ...storage]);
    expect([seeded.code, seeded.stdout.trim()]).toEqual([0, 'demo data present; added 0 people']);
    const usage = await runCli(['pat', 'create', '--email', 'nobody@demo.test', '--name', 'x', ...storage]);
    expect([usage.code, usage.stderr.trim().split('\n').at(-1)]).toEqual([
      2,
      'addon-kit pat: no person with the e-mail nobody@demo.test',
    ]);
    // The embedded database has one host; on PostgreSQL several hosts share the database, so nothing to refuse.
    if (!databaseUrl) {
      const second = await runCli(['start', '--port', '0', '--no-demo', ...storage]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/is in use by process \d+ \(a running addon-kit start\?\)/);
    }
  }, 120_000);

  it.runIf(!process.env.DATABASE_URL)('keeps its channel readable and writable by its owner only [0600]', async () => {
    expect((await stat(join(dataDir, 'cli.sock'))).mode & 0o777).toBe(0o600);
  });
});

describe('a command where there is no data directory', () => {
  it('says where it looked and what to do, and creates nothing', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'addon-kit-elsewhere-'));
    const res = await runCli(
      ['oauth-app', 'create', '--name', 'x', '--redirect-uri', 'https://x.test/cb'],
      {},
      {
        cwd: elsewhere,
        unset: ['ADDON_KIT_DATA_DIR'],
      },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      `addon-kit oauth-app: no addon-kit data directory at ${join(elsewhere, '.addon-kit')}: run this where you ran ` +
        "`npm start` (the host's folder), or pass --data-dir (or --database-url); `addon-kit start` and " +
        '`addon-kit seed` create one\n',
    );
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
