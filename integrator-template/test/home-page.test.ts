import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import { createIntegratorTestDatabase, startTestIntegrator, type TestIntegrator } from './support.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

describe('GET /', () => {
  it('names the page once, as the service (not "Template Integrator · Template Integrator")', async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<title>Template Integrator</title>');
    expect(html).toContain('<h1>Template Integrator</h1>');
  });
});
