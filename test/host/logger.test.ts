import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { createTestDatabase } from '../support/database.ts';

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

function capture(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

const failure = (sql: string, params: unknown[]) =>
  db.query(sql, params).then(
    () => expect.unreachable(),
    (error: unknown) => error,
  );

describe('createLogger()', () => {
  it('keeps a PostgreSQL error’s code and hides the values it quotes [unique violation]', async () => {
    const { rows } = await db.query<{ email: string }>("SELECT email FROM people WHERE email = 'admin@demo.test'");
    const error = await failure('UPDATE people SET email = $1 WHERE email = $2', [rows[0]!.email, 'editor@demo.test']);
    const { logger, lines } = capture();
    logger.error({ err: error }, 'unexpected error');
    const err = lines[0]!.err as Record<string, unknown>;
    expect(err.code).toBe('23505');
    expect(JSON.stringify(lines[0])).not.toContain('admin@demo.test');
    expect(JSON.stringify(lines[0])).not.toContain('editor@demo.test');
  });

  it('keeps a PostgreSQL error’s code and hides the values it quotes [bad input syntax]', async () => {
    const error = await failure('SELECT 1 FROM people WHERE id = $1', ['secret-looking-value']);
    const { logger, lines } = capture();
    logger.error({ err: error }, 'unexpected error');
    expect((lines[0]!.err as Record<string, unknown>).code).toBe('22P02');
    expect(JSON.stringify(lines[0])).not.toContain('secret-looking-value');
  });

  it('still redacts OAuth codes, tokens, secrets and passwords', () => {
    const { logger, lines } = capture();
    const code = 'Zk3-abcdefghijklmnopqrstuvwxyz0123456789ABCDE';
    logger.info(
      { body: { code, password: 'pw', client_secret: 'cs', refresh_token: 'rt' }, err: { code: 'ECONNRESET' } },
      'x',
    );
    expect(lines[0]).toMatchObject({
      body: { code: '[redacted]', password: '[redacted]', client_secret: '[redacted]', refresh_token: '[redacted]' },
      err: { code: 'ECONNRESET' },
    });
  });
});
