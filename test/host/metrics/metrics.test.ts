/** `GET /metrics`: the Prometheus exposition of the host, never public by default. */
import * as client from 'openid-client';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForMetrics } from '#host/metrics/index.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, type TestHost } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

const TOKEN = 'metrics-token-metrics-token-metrics-token';

/** The value of one series in an exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics [not configured]', () => {
  it('is a 404, with or without a token, and nothing is collected', async () => {
    const t = await createTestHost();
    try {
      const res = await supertest(t.host.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect([res.status, res.body, t.host.metrics.enabled]).toEqual([
        404,
        { errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }] },
        false,
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics [metrics token]', () => {
  let t: TestHost;
  let basic: string;
  beforeAll(async () => {
    t = await createTestHost({ config: { metricsToken: TOKEN, rateLimit: '3/60' } });
    basic = await basicAuthFor(t.db, 'admin@demo.test');
  });
  afterAll(() => t.close());
  const scrape = async () => {
    const res = await supertest(t.host.app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([
      200,
      'text/plain; version=0.0.4; charset=utf-8',
      'no-store',
    ]);
    return res.text;
  };

  it.each([
    ['no token', undefined],
    ['a wrong token', 'Bearer wrong-token-wrong-token-wrong-token-wrong'],
    ['the token as Basic', `Basic ${Buffer.from(TOKEN).toString('base64')}`],
  ])('answers 404 to %s', async (_name, authorization) => {
    const request = supertest(t.host.app).get('/metrics');
    const res = await (authorization ? request.set('Authorization', authorization) : request);
    expect(res.status).toBe(404);
  });

  it('counts requests by method, route template and status, the process metrics beside them', async () => {
    const api = () => supertest(t.host.app).get('/people/v2/lists/1').set('User-Agent', TEST_USER_AGENT);
    expect((await api().set('Authorization', basic)).status).toBe(200);
    expect((await supertest(t.host.app).get('/no/such/page/123')).status).toBe(404);
    const text = await scrape();
    expect(
      sample(
        text,
        'addon_kit_http_request_duration_seconds_count{method="GET",route="/people/v2/lists/:id",status="200"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'addon_kit_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
    ).toBe(1);
    expect(text).toContain('# TYPE addon_kit_http_request_duration_seconds histogram');
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text.includes('/people/v2/lists/1"')).toBe(false);
  });

  it('counts the API rate limit’s refusals', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await supertest(t.host.app)
            .get('/people/v2/notes')
            .set('User-Agent', TEST_USER_AGENT)
            .set('Authorization', basic)
        ).status,
      );
    expect(statuses.slice(-2)).toEqual([429, 429]);
    expect(sample(await scrape(), 'addon_kit_limit_refusals_total{limit="api_rate_limit"}')).toBe(2);
  });

  it.runIf(process.env.DATABASE_URL)('reports the database pool in use, idle and waiting [PostgreSQL]', async () => {
    const text = await scrape();
    expect(sample(text, 'addon_kit_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'addon_kit_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'addon_kit_db_pool_waiting')).toBe(0);
  });
});

describe('GET /metrics [OAuth refresh grants]', () => {
  let t: HttpTestHost;
  beforeAll(async () => {
    t = await startHttpTestHost({ config: { metricsToken: TOKEN } });
  });
  afterAll(() => t.close());

  it('counts refresh grants by outcome', async () => {
    const app = await createTestApplication(t.db);
    const config = await discoverClient(t.baseUrl, app);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    await client.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(client.refreshTokenGrant(config, 'not-a-refresh-token')).rejects.toThrow();
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    expect([
      sample(text, 'addon_kit_token_refreshes_total{grant="oauth_refresh_token",outcome="success"}'),
      sample(text, 'addon_kit_token_refreshes_total{grant="oauth_refresh_token",outcome="failure"}'),
    ]).toEqual([1, 1]);
  });
});

describe('listenForMetrics()', () => {
  it('serves /metrics without a token on its own port, and nothing else', async () => {
    const t = await createTestHost({ config: { metricsPort: 0 } });
    const listener = await listenForMetrics(t.host.metrics, 0, '127.0.0.1');
    try {
      const url = `http://127.0.0.1:${listener.port}`;
      const metrics = await fetch(`${url}/metrics`);
      expect([metrics.status, metrics.headers.get('content-type')]).toEqual([
        200,
        'text/plain; version=0.0.4; charset=utf-8',
      ]);
      expect(await metrics.text()).toContain('# TYPE addon_kit_http_request_duration_seconds histogram');
      expect((await fetch(`${url}/health`)).status).toBe(404);
      // The host's own port keeps it closed: no token is configured.
      expect((await supertest(t.host.app).get('/metrics')).status).toBe(404);
    } finally {
      await listener.close();
      await t.close();
    }
  });
});
