import { Writable } from 'node:stream';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { createTestDatabase } from '../../support/database.ts';
import { engineApp } from '../../support/engine-app.ts';

let db: Database;
const lines: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('unexpected errors', () => {
  it('answers 500 with the spec detail, leaks nothing and logs the error with the request id', async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const res = await supertest(engineApp(db, createLogger('info', sink))).get('/test/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      errors: [
        {
          status: '500',
          title: 'Internal Server Error',
          detail: 'An internal error occurred. Please contact support if the problem persists.',
        },
      ],
    });
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('at ');
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; requestId: string; err?: { message: string } });
    const entry = logged.find((l) => l.msg === 'unexpected error');
    expect(entry?.requestId).toBe(requestId);
    expect(entry?.err?.message).toBe('database password is hunter2');
  });
});
