/** Two spawned `addon-kit start` processes on one PostgreSQL database share the API rate limit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { createEmptyPostgresDatabase } from '../../support/database.ts';
import { runCli, startCli, stopCli } from '../../support/cli.ts';

const children: ChildProcessWithoutNullStreams[] = [];
let urls: string[] = [];
let authorization = '';

describe.skipIf(!process.env.DATABASE_URL)('API rate limit [two host processes on one PostgreSQL]', () => {
  beforeAll(async () => {
    const databaseUrl = (await createEmptyPostgresDatabase())!;
    const env = { ADDON_KIT_RATE_LIMIT: '4/20', ADDON_KIT_LOG_LEVEL: 'warn' };
    // One data directory: on PostgreSQL it holds only the generated secrets, which both processes must share.
    const dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-scaled-'));
    const start = async () => {
      const started = await startCli(
        ['start', '--port', '0', '--data-dir', dataDir, '--database-url', databaseUrl],
        /listening on (http:\/\/\S+)/,
        env,
      );
      children.push(started.child);
      return started.match[1]!;
    };
    // One after the other: the first migrates and seeds, the second finds everything in place.
    urls = [await start(), await start()];
    const pat = await runCli([
      'pat',
      'create',
      '--database-url',
      databaseUrl,
      '--data-dir',
      dataDir,
      '--email',
      'admin@demo.test',
      '--name',
      'scaled out',
      '--json',
    ]);
    const { client_id, secret } = JSON.parse(pat.stdout) as { client_id: string; secret: string };
    authorization = `Basic ${Buffer.from(`${client_id}:${secret}`).toString('base64')}`;
  }, 180_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => stopCli(c)));
  });

  it('counts the requests of one token across both processes', async () => {
    const me = (url: string) =>
      fetch(`${url}/current/v2/me`, { headers: { authorization, 'user-agent': TEST_USER_AGENT } });
    const counts: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await me(urls[i % 2]!);
      expect(res.status).toBe(200);
      counts.push(res.headers.get('x-pco-api-request-rate-count'));
    }
    expect(counts).toEqual(['1', '2', '3', '4']);
    const over = await Promise.all(urls.map(me));
    expect(over.map((r) => r.status)).toEqual([429, 429]);
    expect(over.every((r) => /^\d+$/.test(r.headers.get('retry-after') ?? ''))).toBe(true);
  });
});
