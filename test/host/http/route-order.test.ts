/**
 * The order of the app's routes (host/app.ts): `/addons` is mounted before the page assets, `/health` and `/metrics`,
 * and the fetch proxy's route comes first among the runtime's — which changes what a proxied call passes, not what
 * any path answers.
 */
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, type TestHost } from '../../support/host.ts';

let t: TestHost;
beforeAll(async () => {
  t = await createTestHost({});
});
afterAll(() => t.close());

describe('route order', () => {
  it('answers OPTIONS on the fetch proxy with Allow: POST, and other methods there with 404 [proxy route]', async () => {
    const path = '/addons/installations/1/fetch/integrator';
    const options = await supertest(t.host.app).options(path);
    expect({ status: options.status, allow: options.headers.allow }).toEqual({ status: 200, allow: 'POST' });
    expect((await supertest(t.host.app).get(path)).status).toBe(404);
    expect((await supertest(t.host.app).put(path)).status).toBe(404);
  });

  it('still serves /health, the favicon and the runtime’s other routes [after /addons]', async () => {
    expect((await supertest(t.host.app).get('/health')).status).toBe(200);
    expect((await supertest(t.host.app).get('/favicon.ico')).status).toBe(200);
    const state = await supertest(t.host.app).get('/addons/installations/1/state');
    expect(state.status).toBe(401);
    expect(state.body.error.code).toBe('login_required');
  });
});
