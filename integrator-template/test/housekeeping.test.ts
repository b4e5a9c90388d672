import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import { recordReceivedEvent } from '../store/addon-kit-events.ts';
import { pruneExpired } from '../store/housekeeping.ts';
import { basic, codeFlow, integratorClient, postToken } from './oauth-client.ts';
import {
  createIntegratorTestDatabase,
  OTHER_USER,
  startTestIntegrator,
  TestClock,
  USER,
  type TestIntegrator,
} from './support.ts';

const DAY = 24 * 60 * 60;

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

/** Row counts of the tables housekeeping prunes. */
async function counts(db: Database) {
  const tables = ['addon_kit_events', 'authorization_codes', 'access_tokens', 'refresh_tokens', 'token_families'];
  const out: Record<string, number> = {};
  for (const table of tables)
    out[table] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  return out;
}

/** A lifecycle event received at `at`. */
const received = (id: string, at: Date) =>
  recordReceivedEvent(t.db, { id, name: 'addon.authorization.completed', payload: '{}', receivedAt: at });

describe('pruneExpired()', () => {
  it('deletes event ids after 60 days, codes and tokens a day after they expired, revoked families a day after; a live grant still refreshes', async () => {
    const start = t.clock.now();
    const config = integratorClient(t.url);
    const live = await codeFlow(config, USER);
    const revoked = await codeFlow(config, OTHER_USER);
    await t.db.query(
      'UPDATE token_families SET revoked_at = $1 WHERE user_id = (SELECT id FROM users WHERE username = $2)',
      [start, OTHER_USER.username],
    );
    const at = (days: number) => new Date(start.getTime() - days * DAY * 1000);
    expect([await received('evt-old', at(61)), await received('evt-recent', at(58))]).toEqual([true, true]);
    expect(await counts(t.db)).toEqual({
      addon_kit_events: 2,
      authorization_codes: 2,
      access_tokens: 2,
      refresh_tokens: 2,
      token_families: 2,
    });

    // Just expired is not yet past use: the codes (60 s) and access tokens (1 h) expired under a day ago.
    t.clock.advance(2 * 3600);
    expect(await pruneExpired(t.db, t.clock.now())).toEqual({
      addon_kit_events: 1,
      token_families: 0,
      authorization_codes: 0,
      access_tokens: 0,
      refresh_tokens: 0,
    });
    t.clock.advance(DAY);
    // The revoked family goes with its code and tokens; then the live grant's expired code and access token.
    expect(await pruneExpired(t.db, t.clock.now())).toEqual({
      addon_kit_events: 0,
      token_families: 1,
      authorization_codes: 1,
      access_tokens: 1,
      refresh_tokens: 0,
    });
    expect(await counts(t.db)).toEqual({
      addon_kit_events: 1,
      authorization_codes: 0,
      access_tokens: 0,
      refresh_tokens: 1,
      token_families: 1,
    });
    expect(await received('evt-recent', t.clock.now())).toBe(false);

    const refreshed = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: live.refresh_token! },
      basic(),
    );
    expect(refreshed.status).toBe(200);
    expect(revoked.refresh_token).toBeTruthy();
    const gone = await postToken(
      t.url,
      { grant_type: 'refresh_token', refresh_token: revoked.refresh_token! },
      basic(),
    );
    expect([gone.status, ((await gone.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
  });
});

describe('createIntegrator()', () => {
  it('prunes at start and says what it deleted', async () => {
    const clock = new TestClock(t.clock.ms + 100 * DAY * 1000);
    const later = await startTestIntegrator(t.db, {}, { clock });
    try {
      // The last event id (over 60 days old by then) and every token: the refresh tokens' 90 days counted from the
      // refresh a day and two hours after the test's start. The grant itself stays (not revoked).
      expect(await counts(t.db)).toEqual({
        addon_kit_events: 0,
        authorization_codes: 0,
        access_tokens: 0,
        refresh_tokens: 0,
        token_families: 1,
      });
      expect(later.logs()).toContain('housekeeping: deleted rows past use');
    } finally {
      await later.close();
    }
  });
});
