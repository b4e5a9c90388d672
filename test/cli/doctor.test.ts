import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { DOCTOR_CHECKS } from '#host/cli/doctor/run-doctor.ts';
import { runCli } from '../support/cli.ts';
import {
  APP_ID,
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  HOST_BASE_URL,
  startTestIntegrator,
  USER,
  type TestIntegrator,
} from '#integrator/test/support.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let configPath: string;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
  // The repository's sample config, pointed at this test's integrator.
  const sample = (await readFile(new URL('../../addon.config.json', import.meta.url), 'utf8')).replaceAll(
    'http://localhost:4100',
    t.url,
  );
  configPath = join(await mkdtemp(join(tmpdir(), 'addon-kit-doctor-')), 'addon.config.json');
  await writeFile(configPath, sample);
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

const env = (secret = CLIENT_SECRET) => ({
  ADDON_OAUTH_APPLICATION_ID: String(APP_ID),
  INTEGRATOR_CLIENT_ID: CLIENT_ID,
  INTEGRATOR_CLIENT_SECRET: secret,
});
const IDS = Object.keys(DOCTOR_CHECKS);
const args = [
  'doctor',
  '--env',
  'development',
  '--host',
  HOST_BASE_URL,
  '--username',
  USER.username,
  '--password',
  USER.password,
];

describe('addon-kit doctor', () => {
  it('checks a running integrator with the add-on config and passes every row [sample config]', async () => {
    const res = await runCli([...args, '--config', configPath], env());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const rows = res.stdout.split('\n');
    expect(rows[0]).toBe(`addon-kit doctor: checking the development integrator at ${t.url}`);
    expect(rows[1]).toMatch(/^Check\s+Result\s+Saw\s+Fix$/);
    expect(rows.slice(3, 3 + IDS.length).map((l) => l.split(/\s{2,}/).slice(0, 2))).toEqual(
      IDS.map((id) => [id, 'PASS']),
    );
    expect(res.stdout).toContain('All checks passed.');
  });

  it('exits 1 with the failing row and its fix [wrong client secret]', async () => {
    const res = await runCli([...args, '--config', configPath], env('a-wrong-secret-0123456789'));
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /\ntoken\.exchange\s+FAIL\s+401 .*invalid_client.*\s+Register the client_id and client_secret of the add-on config/,
    );
    expect(res.stdout).toMatch(/\nrefresh\.grant\s+SKIP/);
    expect(res.stdout).toContain('1 check(s) failed.');
  });

  it('prints only the JSON report on stdout and exits 0 [--json]', async () => {
    const res = await runCli([...args, '--config', configPath, '--json'], env());
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(`addon-kit doctor: checking the development integrator at ${t.url}\n`);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: { id: string; status: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual(IDS.map((id) => [id, 'pass']));
  });

  it('exits 1 with ok false and the failing row in the JSON report [--json, wrong client secret]', async () => {
    const res = await runCli([...args, '--config', configPath, '--json'], env('a-wrong-secret-0123456789'));
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: { id: string; status: string; fix?: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['token.exchange']);
    expect(report.checks.find((c) => c.id === 'token.exchange')!.fix).toBe(
      'Register the client_id and client_secret of the add-on config with the integrator; the host sends them in the form body (client_secret_post).',
    );
  });

  it('exits 2 without --env, and 1 naming every problem of an invalid config', async () => {
    const noEnv = await runCli(['doctor', '--config', configPath], env());
    expect(noEnv.code).toBe(2);
    expect(noEnv.stderr.trim()).toBe('addon-kit doctor: --env is required (one of development, beta, production)');
    const bad = join(await mkdtemp(join(tmpdir(), 'addon-kit-doctor-')), 'addon.config.json');
    await writeFile(
      bad,
      JSON.stringify({ oauth_application_id: 'x', scopes: [], ui_extensions: {}, environments: {} }),
    );
    const invalid = await runCli(['doctor', '--env', 'development', '--config', bad], env());
    expect(invalid.code).toBe(1);
    expect(invalid.stderr.split('\n')[0]).toBe(`${bad} is not a valid add-on config:`);
    expect(invalid.stderr.split('\n').filter((l) => l.startsWith('  - ')).length).toBeGreaterThanOrEqual(3);
  });

  it('exits 1 naming each http URL of a beta environment before calling anything [beta on http]', async () => {
    const sample = JSON.parse(await readFile(configPath, 'utf8')) as { environments: Record<string, unknown> };
    sample.environments = { beta: sample.environments.development };
    const path = join(await mkdtemp(join(tmpdir(), 'addon-kit-doctor-')), 'addon.config.json');
    await writeFile(path, JSON.stringify(sample));
    const res = await runCli(['doctor', '--env', 'beta', '--config', path, '--host', HOST_BASE_URL], env());
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.split('\n').filter((l) => l.startsWith('  - '))).toEqual([
      '  - environments.beta.integrator_oauth.authorize_url: must be an https URL outside development',
      '  - environments.beta.integrator_oauth.token_url: must be an https URL outside development',
      '  - environments.beta.integrator_oauth.redirect_url: must be an https URL outside development',
      '  - environments.beta.integrator_api.base_url: must be an https URL outside development',
      '  - environments.beta.webhook_url: must be an https URL outside development',
    ]);
  });
});
