import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuthorizationStore,
  IllegalTransitionError,
  type AuthorizationStore,
} from '#host/addons/authorizations/index.ts';
import { createTestHost, personId, type TestHost } from '../../../support/host.ts';
import { installationId, registerAddon } from '../fixtures.ts';

let t: TestHost;
let store: AuthorizationStore;
let installation: string;
let people: Record<string, string>;

beforeAll(async () => {
  t = await createTestHost();
  store = createAuthorizationStore(t.db);
  const addon = await registerAddon(t.db, { integratorUrl: 'http://127.0.0.1:9' });
  installation = await installationId(t.db, addon.addonId);
  people = {};
  for (const email of ['admin@demo.test', 'editor@demo.test', 'member@demo.test'])
    people[email] = await personId(t.db, email);
});
afterAll(() => t.close());

const stateOf = async (id: string) => (await store.findById(id))!.state;
const sealed = (access: string, refresh: string | null = null) => ({ access, refresh, expiresAt: null, keyId: 'k1' });

describe('AuthorizationStore', () => {
  it('creates one uninitialized row per person and installation [ensure]', async () => {
    const first = await store.ensure(installation, people['member@demo.test']!);
    const again = await store.ensure(installation, people['member@demo.test']!);
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({
      installation_id: installation,
      person_id: people['member@demo.test'],
      state: 'uninitialized',
      service_access_token_encrypted: null,
    });
    expect(await store.find(installation, people['member@demo.test']!)).toEqual(first);
    expect(await store.find(installation, '999999')).toBeUndefined();
  });

  it('walks the handshake states and lists them per person [transitions]', async () => {
    const { id } = await store.ensure(installation, people['admin@demo.test']!);
    await store.saveServiceTokens(id, sealed('s-a', 's-r'), ['people']);
    expect(await stateOf(id)).toBe('service_authorized');
    await store.transition(id, 'integrator_pending');
    await store.saveIntegratorTokens(id, { ...sealed('i-a', 'i-r'), scope: 'messages' }, { ready: true });
    expect(await store.findById(id)).toMatchObject({
      state: 'ready',
      integrator_access_token_encrypted: 'i-a',
      integrator_refresh_token_encrypted: 'i-r',
      integrator_scope: 'messages',
    });
    // A refresh keeps the state and the refresh token when none comes back.
    await store.saveIntegratorTokens(
      id,
      { ...sealed('i-a2'), scope: null },
      { refreshedAt: new Date('2030-01-01T00:00:00Z') },
    );
    expect(await store.findById(id)).toMatchObject({
      state: 'ready',
      integrator_access_token_encrypted: 'i-a2',
      integrator_refresh_token_encrypted: 'i-r',
      integrator_scope: 'messages',
    });
    await store.transition(id, 'reauthorization_required');
    expect((await store.statesOfPerson(people['admin@demo.test']!)).get(installation)).toBe('reauthorization_required');
  });

  it('refuses an illegal move and writes nothing [illegal transition]', async () => {
    const { id } = await store.ensure(installation, people['editor@demo.test']!);
    await expect(store.transition(id, 'ready')).rejects.toEqual(new IllegalTransitionError('uninitialized', 'ready'));
    await expect(
      store.saveIntegratorTokens(id, { ...sealed('x'), scope: null }, { ready: true }),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await store.findById(id)).toMatchObject({ state: 'uninitialized', integrator_access_token_encrypted: null });
    await expect(store.transition(id, 'integrator_pending')).rejects.toMatchObject({
      code: 'illegal_transition',
      from: 'uninitialized',
      to: 'integrator_pending',
    });
    expect(await stateOf(id)).toBe('uninitialized');
  });

  it('starts a leg, consumes a consented state exactly once, and clears it [handshake]', async () => {
    const { id } = await store.ensure(installation, people['member@demo.test']!);
    const deadline = new Date(Date.now() + 60_000);
    expect(await store.beginLeg(id, { stateHash: 'h1', expiresAt: deadline, sealedVerifier: null })).toBe(true);
    expect(await store.findLegOne('h1', people['member@demo.test']!)).toEqual({ id, installationId: installation });
    expect(await store.findLegOne('h1', people['admin@demo.test']!)).toBeUndefined();
    // Not consented yet: the guarded replacement writes nothing.
    expect(
      await store.beginLeg(
        id,
        { stateHash: 'h2', expiresAt: deadline, sealedVerifier: 'v' },
        { stateHash: 'h1', now: new Date() },
      ),
    ).toBe(false);
    await store.markConsent(id, 'h1');
    expect(await store.handshakeOf(installation, people['member@demo.test']!)).toEqual({
      id,
      stateHash: 'h1',
      expiresAt: deadline,
      consentHash: 'h1',
    });
    const replace = () =>
      store.beginLeg(
        id,
        { stateHash: 'h2', expiresAt: deadline, sealedVerifier: 'v' },
        { stateHash: 'h1', now: new Date() },
      );
    expect(await Promise.all([replace(), replace()])).toEqual(expect.arrayContaining([true, false]));
    expect(await store.sealedVerifier(id)).toBe('v');
    expect(await store.findLegOne('h2', people['member@demo.test']!)).toBeUndefined();
    await store.markConsent(id, 'h1');
    expect((await store.handshakeOf(installation, people['member@demo.test']!))!.consentHash).toBeNull();
    await store.clearHandshake(id);
    expect(await store.handshakeOf(installation, people['member@demo.test']!)).toEqual({
      id,
      stateHash: null,
      expiresAt: null,
      consentHash: null,
    });
    expect(await store.sealedVerifier(id)).toBeNull();
  });

  it('re-seals a column only while it holds the value read [reseal]', async () => {
    const { id } = await store.ensure(installation, people['admin@demo.test']!);
    const before = (await store.findById(id))!.service_access_token_encrypted!;
    await store.reseal(id, 'k2', [
      { column: 'service_access_token_encrypted', sealed: 'new', previous: 'not-the-stored-value' },
    ]);
    expect((await store.findById(id))!.service_access_token_encrypted).toBe(before);
    await store.reseal(id, 'k2', [{ column: 'service_access_token_encrypted', sealed: 'new', previous: before }]);
    expect((await store.findById(id))!.service_access_token_encrypted).toBe('new');
  });
});
