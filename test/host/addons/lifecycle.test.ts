/**
 * Add-on lifecycle events end to end: a real host (its delivery worker on) and the real template integrator, whose
 * receiver is the environment's `webhook_url`. Completing the handshake, revoking it, being excluded by the
 * organization's access_mode and losing the integrator grant each deliver one signed event; the template stores
 * each once and drops the person's tokens on all but `completed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccessMode } from '#host/oauth/application-access.ts';
import { personId } from '../../support/host.ts';
import { TestClock, USER } from '#integrator/test/support.ts';
import { loggedIn, organizationId, proxyFetch, testVault } from './fixtures.ts';
import {
  completeHandshake,
  receivedLifecycleEvents,
  startHandshakeFixture,
  type HandshakeFixture,
} from './handshake-fixture.ts';

let f: HandshakeFixture;
let installation: string;
let aliceId: string;

beforeAll(async () => {
  // The receiver judges timestamps by the integrator's clock: here it runs at the host's time.
  f = await startHandshakeFixture(
    { webhookPollIntervalMs: 50, webhookRetryScale: 0.001 },
    { lifecycleWebhook: true, integratorClock: new TestClock(Date.now()) },
  );
  const { rows } = await f.integrator.db.query<{ id: string }>('SELECT id::text FROM users WHERE username = $1', [
    USER.username,
  ]);
  aliceId = rows[0]!.id;
});
afterAll(() => f?.close());

/** Alice's token families at the template (the tokens it issued to the host for her). */
async function aliceGrants(): Promise<number> {
  const { rows } = await f.integrator.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM token_families WHERE user_id::text = $1',
    [aliceId],
  );
  return rows[0]!.n;
}

/** The host's outbox rows of a lifecycle event name. */
async function outbox(name: string) {
  const { rows } = await f.t.db.query<{
    status: string;
    subscription_id: string | null;
    target_url: string;
    attempts: number;
    response_status: number | null;
  }>(
    `SELECT e.status, e.subscription_id::text, e.target_url, e.attempts,
       (SELECT d.response_status FROM webhook_deliveries d WHERE d.event_id = e.id ORDER BY d.attempt DESC LIMIT 1) AS response_status
     FROM webhook_events e WHERE e.name = $1 ORDER BY e.id`,
    [name],
  );
  return rows;
}

function expectedPayload(event: string, admin: string, org: string) {
  return {
    event,
    addon_id: expect.stringMatching(/^[0-9]+$/) as unknown,
    oauth_application_id: f.appId,
    installation_id: installation,
    environment: 'development',
    organization_id: org,
    person_id: admin,
    integrator_user_id: aliceId,
    integrator_client_id: 'test-host',
    occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
  };
}

describe('add-on lifecycle events to the template integrator', () => {
  it('delivers completed once the handshake completes; the template stores it once [completed]', async () => {
    const { browser } = await loggedIn(f.t.baseUrl);
    installation = await completeHandshake(browser);
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.completed'), { timeout: 15_000 })
      .toHaveLength(1);
    const admin = await personId(f.t.db, 'admin@demo.test');
    const org = await organizationId(f.t.db, 'demo');
    expect((await receivedLifecycleEvents(f, 'addon.authorization.completed'))[0]).toEqual(
      expectedPayload('addon.authorization.completed', admin, org),
    );
    await expect
      .poll(() => outbox('addon.authorization.completed'))
      .toEqual([
        {
          status: 'delivered',
          subscription_id: null,
          target_url: f.integrator.integrator.urls.webhook,
          attempts: 1,
          response_status: 200,
        },
      ]);
    // The host stored the integrator's user id with the authorization.
    const { rows } = await f.t.db.query<{ integrator_subject: string }>(
      'SELECT integrator_subject FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2',
      [installation, admin],
    );
    expect(rows).toEqual([{ integrator_subject: aliceId }]);
    expect(await aliceGrants()).toBe(1);
  });

  it('delivers revoked when the person revokes; the template drops their tokens [revoked]', async () => {
    const session = await loggedIn(f.t.baseUrl);
    const admin = await personId(f.t.db, 'admin@demo.test');
    const before = (await testVault(f.t.db).find(installation, admin))!;
    // A call before: answered (and, on the embedded database, its read kept for the next call).
    const working = await proxyFetch(f.t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    expect(working.status).toBe(200);
    const path = `/addons/installations/${installation}/revoke`;
    // Without the CSRF token, or from another origin: refused, nothing changes.
    const refused = await Promise.all([
      fetch(`${f.t.baseUrl}${path}`, { method: 'POST', headers: { cookie: session.cookie, origin: f.t.baseUrl } }),
      fetch(`${f.t.baseUrl}${path}`, {
        method: 'POST',
        headers: { cookie: session.cookie, origin: 'http://evil.example', 'x-csrf-token': session.csrf },
      }),
    ]);
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('csrf_failed');
    }
    expect(await testVault(f.t.db).find(installation, admin)).toBeDefined();

    const res = await fetch(`${f.t.baseUrl}${path}`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: f.t.baseUrl, 'x-csrf-token': session.csrf },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ state: 'uninitialized' });
    expect(await testVault(f.t.db).find(installation, admin)).toBeUndefined();
    expect(await f.t.host.oauthProvider.AccessToken.find(before.service!.accessToken)).toBeUndefined();
    // The add-on's calls stop at once, on both sides.
    for (const side of ['integrator', 'service'] as const) {
      const after = await proxyFetch(f.t.baseUrl, session, installation, side, {
        url: side === 'service' ? '/current/v2/me' : '/api/messages',
      });
      expect(after.status).toBe(401);
      expect((await after.json()).error.code).toBe('handshake_required');
    }

    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.revoked'), { timeout: 15_000 })
      .toHaveLength(1);
    expect((await receivedLifecycleEvents(f, 'addon.authorization.revoked'))[0]).toEqual(
      expectedPayload('addon.authorization.revoked', admin, await organizationId(f.t.db, 'demo')),
    );
    expect(await aliceGrants()).toBe(0);

    // Revoking again: nothing to revoke, no second event.
    const again = await fetch(`${f.t.baseUrl}${path}`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: f.t.baseUrl, 'x-csrf-token': session.csrf },
    });
    expect(again.status).toBe(200);
    expect(await outbox('addon.authorization.revoked')).toHaveLength(1);
    // Another organization's installation id is not found.
    const foreign = await fetch(`${f.t.baseUrl}/addons/installations/999999/revoke`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: f.t.baseUrl, 'x-csrf-token': session.csrf },
    });
    expect(foreign.status).toBe(404);
  });

  it('delivers excluded once when the access mode leaves the person out [excluded]', async () => {
    const session = await loggedIn(f.t.baseUrl);
    installation = await completeHandshake(session.browser);
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.completed'), { timeout: 15_000 })
      .toHaveLength(2);
    expect(await aliceGrants()).toBe(1);
    const org = await organizationId(f.t.db, 'demo');
    await setAccessMode(f.t.db, { organizationId: org, applicationId: f.appId, mode: 'specific_people' });
    try {
      for (let i = 0; i < 2; i++) {
        const call = await proxyFetch(f.t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
        expect(call.status).toBe(403);
        expect((await call.json()).error.code).toBe('not_allowed');
      }
      await expect
        .poll(() => receivedLifecycleEvents(f, 'addon.authorization.excluded'), { timeout: 15_000 })
        .toHaveLength(1);
      expect(await outbox('addon.authorization.excluded')).toHaveLength(1);
      expect(await aliceGrants()).toBe(0);
    } finally {
      await setAccessMode(f.t.db, { organizationId: org, applicationId: f.appId, mode: 'anyone' });
    }
  });

  it('delivers reauthorization_required when the integrator refuses the refresh [reauthorization]', async () => {
    const session = await loggedIn(f.t.baseUrl);
    installation = await completeHandshake(session.browser);
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.completed'), { timeout: 15_000 })
      .toHaveLength(3);
    // The integrator forgets the grant: the API answers 401, the refresh answers invalid_grant.
    await f.integrator.db.query('DELETE FROM token_families WHERE user_id::text = $1', [aliceId]);
    const call = await proxyFetch(f.t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    expect(call.status).toBe(401);
    expect((await call.json()).error.code).toBe('reauthorization_required');
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.reauthorization_required'), { timeout: 15_000 })
      .toHaveLength(1);
    // A second call finds the state moved: no second event.
    const second = await proxyFetch(f.t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    expect(second.status).toBe(401);
    expect(await outbox('addon.authorization.reauthorization_required')).toHaveLength(1);
  });
});
