import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DatabaseAdapter,
  EXPIRED_RECORD_RETENTION_SECONDS,
  purgeExpiredOAuthRecords,
  recordDigest,
} from '#host/oauth/provider-records/index.ts';
import { purgeOldMonthlyActiveUsers } from '#host/oauth/housekeeping.ts';
import { createTestHost, personId, type TestHost } from '../../support/host.ts';
import { createTestApplication } from '../../support/oauth-flow.ts';

let t: TestHost;
beforeAll(async () => {
  t = await createTestHost();
});
afterAll(() => t.close());

/** Sets a record's expiry `agoMs` before the present. */
async function expire(id: string, agoMs: number): Promise<void> {
  await t.db.query('UPDATE oauth_provider_records SET expires_at = $2 WHERE id_digest = $1', [
    recordDigest(id),
    new Date(Date.now() - agoMs),
  ]);
}

describe('purgeExpiredOAuthRecords()', () => {
  it('deletes records expired more than a day ago and keeps the rest', async () => {
    const adapter = new DatabaseAdapter(t.db, 'AccessToken');
    await adapter.upsert('keep-me', { jti: 'keep-me', kind: 'AccessToken' }, 3600);
    await adapter.upsert('old-one', { jti: 'old-one', kind: 'AccessToken' }, 60);
    const later = new Date(Date.now() + 2 * 86_400_000);
    await t.db.query("UPDATE oauth_provider_records SET expires_at = now() + interval '3 days' WHERE id_digest = $1", [
      recordDigest('keep-me'),
    ]);
    expect(await purgeExpiredOAuthRecords(t.db, later)).toBe(1);
    expect(await adapter.find('keep-me')).toEqual({ kind: 'AccessToken', jti: 'keep-me' });
    const { rows } = await t.db.query('SELECT 1 FROM oauth_provider_records WHERE id_digest = $1', [
      recordDigest('old-one'),
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('DatabaseAdapter', () => {
  it('stores the payload without its id, under the id’s SHA-256', async () => {
    const adapter = new DatabaseAdapter(t.db, 'RefreshToken');
    await adapter.upsert('secret-id-1', { jti: 'secret-id-1', grantId: 'g1', kind: 'RefreshToken' }, 60);
    const { rows } = await t.db.query<{ payload: unknown; grant_id: string }>(
      'SELECT payload, grant_id FROM oauth_provider_records WHERE id_digest = $1',
      [recordDigest('secret-id-1')],
    );
    expect(rows).toEqual([{ payload: { grantId: 'g1', kind: 'RefreshToken' }, grant_id: 'g1' }]);
    expect(await adapter.find('secret-id-1')).toEqual({ grantId: 'g1', kind: 'RefreshToken', jti: 'secret-id-1' });
  });

  it('never returns an expired access token, grant or session', async () => {
    for (const model of ['AccessToken', 'Grant', 'Session']) {
      const adapter = new DatabaseAdapter(t.db, model);
      await adapter.upsert(`expired-${model}`, { jti: `expired-${model}`, kind: model }, 60);
      await expire(`expired-${model}`, 1000);
      expect(await adapter.find(`expired-${model}`)).toBeUndefined();
    }
  });

  it('returns an expired code or refresh token until a day after its expiry, so a replay is recognised [replay]', async () => {
    for (const model of ['AuthorizationCode', 'RefreshToken']) {
      const adapter = new DatabaseAdapter(t.db, model);
      await adapter.upsert(`late-${model}`, { jti: `late-${model}`, kind: model }, 60);
      await adapter.consume(`late-${model}`);
      await expire(`late-${model}`, EXPIRED_RECORD_RETENTION_SECONDS * 1000 - 60_000);
      expect(await adapter.find(`late-${model}`)).toEqual({
        kind: model,
        jti: `late-${model}`,
        consumed: expect.any(Number),
      });
      await expire(`late-${model}`, EXPIRED_RECORD_RETENTION_SECONDS * 1000 + 1000);
      expect(await adapter.find(`late-${model}`)).toBeUndefined();
    }
  });

  it('consumes a record once; the second consume fails with invalid_grant', async () => {
    const adapter = new DatabaseAdapter(t.db, 'AuthorizationCode');
    await adapter.upsert('code-1', { jti: 'code-1', kind: 'AuthorizationCode' }, 60);
    await adapter.consume('code-1');
    await expect(adapter.consume('code-1')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await adapter.find('code-1')).toMatchObject({ consumed: expect.any(Number) });
  });
});

describe('purgeOldMonthlyActiveUsers()', () => {
  it('keeps exactly the 24 months up to the current one', async () => {
    const app = await createTestApplication(t.db, { name: 'History' });
    const person = await personId(t.db, 'admin@demo.test');
    for (const [year, month] of [
      [2024, 5],
      [2024, 6],
      [2026, 5],
    ]) {
      await t.db.query(
        'INSERT INTO oauth_monthly_active_users (application_id, person_id, year, month) VALUES ($1, $2, $3, $4)',
        [app.id, person, year, month],
      );
    }
    expect(await purgeOldMonthlyActiveUsers(t.db, new Date(Date.UTC(2026, 4, 15)))).toBe(1);
    const { rows } = await t.db.query(
      'SELECT year, month FROM oauth_monthly_active_users WHERE application_id = $1 ORDER BY year, month',
      [app.id],
    );
    expect(rows).toEqual([
      { year: 2024, month: 6 },
      { year: 2026, month: 5 },
    ]);
  });
});
