import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import type { Database } from '../store/database.ts';
import { createIntegratorTestDatabase } from './support.ts';

let db: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ db, drop } = await createIntegratorTestDatabase());
  await db.query(
    "INSERT INTO users (username, name, password_hash, created_at) VALUES ('taken@example.test', 'Taken', 'x', now()), ('other@example.test', 'Other', 'x', now())",
  );
});
afterAll(() => drop());

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
    const error = await failure('UPDATE users SET username = $1 WHERE username = $2', [
      'taken@example.test',
      'other@example.test',
    ]);
    const { logger, lines } = capture();
    logger.error({ err: error }, 'unexpected error');
    expect((lines[0]!.err as Record<string, unknown>).code).toBe('23505');
    expect(JSON.stringify(lines[0])).not.toContain('taken@example.test');
    expect(JSON.stringify(lines[0])).not.toContain('other@example.test');
  });

  it('keeps a PostgreSQL error’s code and hides the values it quotes [bad input syntax]', async () => {
    const error = await failure('SELECT 1 FROM users WHERE id = $1', ['secret-looking-value']);
    const { logger, lines } = capture();
    logger.error({ err: error }, 'unexpected error');
    expect((lines[0]!.err as Record<string, unknown>).code).toBe('22P02');
    expect(JSON.stringify(lines[0])).not.toContain('secret-looking-value');
  });

  it('still redacts OAuth codes, tokens, secrets and passwords', () => {
    const { logger, lines } = capture();
    const code = 'Zk3-abcdefghijklmnopqrstuvwxyz0123456789ABCDE';
    logger.info(
      {
        body: { code, password: 'pw', client_secret: 'cs', refresh_token: 'rt', id_token: 'it' },
        err: { code: 'ECONNRESET' },
      },
      'x',
    );
    expect(lines[0]).toMatchObject({
      body: {
        code: '[redacted]',
        password: '[redacted]',
        client_secret: '[redacted]',
        refresh_token: '[redacted]',
        id_token: '[redacted]',
      },
      err: { code: 'ECONNRESET' },
    });
  });
});
