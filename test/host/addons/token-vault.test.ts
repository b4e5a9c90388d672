import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVault } from '#host/addons/authorizations/token-vault.ts';
import { createSecretBox, SecretBoxError } from '#host/crypto/secret-box.ts';
import { TEST_ENCRYPTION_KEY } from '../../support/constants.ts';
import { createTestHost, personId, type TestHost } from '../../support/host.ts';
import { installationId, registerAddon, seedReady } from './fixtures.ts';

let t: TestHost;
let installation: string;
let people: Record<string, string>;

const NEW_KEY = { id: 'k2', key: Buffer.alloc(32, 9).toString('base64') };

beforeAll(async () => {
  t = await createTestHost();
  const addon = await registerAddon(t.db, { integratorUrl: 'http://127.0.0.1:9' });
  installation = await installationId(t.db, addon.addonId);
  people = {};
  for (const email of ['admin@demo.test', 'editor@demo.test', 'member@demo.test'])
    people[email] = await personId(t.db, email);
});
afterAll(() => t.close());

const sealedColumns = async (id: string) =>
  (
    await t.db.query<Record<string, string | null>>(
      `SELECT encryption_key_id, service_access_token_encrypted, service_refresh_token_encrypted, integrator_access_token_encrypted, integrator_refresh_token_encrypted
       FROM addon_authorizations WHERE id = $1`,
      [id],
    )
  ).rows[0]!;

describe('TokenVault', () => {
  it('creates an uninitialized record once per person and installation [ensure]', async () => {
    const vault = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const first = await vault.ensure(installation, people['member@demo.test']!);
    const again = await vault.ensure(installation, people['member@demo.test']!);
    expect(first).toEqual({
      id: first.id,
      installationId: installation,
      personId: people['member@demo.test'],
      state: 'uninitialized',
      service: undefined,
      integrator: undefined,
    });
    expect(again.id).toBe(first.id);
  });

  it('moves through the handshake states and stores both token sets sealed [state machine]', async () => {
    const vault = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const { id } = await vault.ensure(installation, people['admin@demo.test']!);
    const expiresAt = new Date('2030-01-01T00:00:00Z');
    await vault.saveServiceTokens(id, { accessToken: 'host-a', refreshToken: 'host-r', expiresAt, scope: 'people' }, [
      'people',
    ]);
    expect((await vault.findById(id))!.state).toBe('service_authorized');
    await vault.setState(id, 'integrator_pending');
    expect((await vault.findById(id))!.state).toBe('integrator_pending');
    await vault.saveIntegratorTokens(
      id,
      { accessToken: 'int-a', refreshToken: 'int-r', expiresAt, scope: 'messages' },
      { state: 'ready' },
    );
    expect(await vault.findById(id)).toEqual({
      id,
      installationId: installation,
      personId: people['admin@demo.test'],
      state: 'ready',
      service: { accessToken: 'host-a', refreshToken: 'host-r', expiresAt, scope: 'people' },
      integrator: { accessToken: 'int-a', refreshToken: 'int-r', expiresAt, scope: 'messages' },
    });
    const raw = await sealedColumns(id);
    expect(raw.encryption_key_id).toBe(TEST_ENCRYPTION_KEY.id);
    for (const column of [
      'service_access_token_encrypted',
      'service_refresh_token_encrypted',
      'integrator_access_token_encrypted',
      'integrator_refresh_token_encrypted',
    ]) {
      expect(raw[column]).toMatch(new RegExp(`^v1\\.${TEST_ENCRYPTION_KEY.id}\\.`));
      expect(raw[column]).not.toMatch(/host-|int-/);
    }
  });

  it('keeps the refresh token when a refresh returns none, and replaces it when one comes back [rotation]', async () => {
    const vault = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const { id } = await seedReady(vault, installation, people['admin@demo.test']!, {
      accessToken: 'a1',
      refreshToken: 'r1',
      expiresAt: undefined,
      scope: undefined,
    });
    await vault.saveIntegratorTokens(id, {
      accessToken: 'a2',
      refreshToken: undefined,
      expiresAt: undefined,
      scope: undefined,
    });
    expect((await vault.findById(id))!.integrator).toEqual({
      accessToken: 'a2',
      refreshToken: 'r1',
      expiresAt: undefined,
      scope: 'messages',
    });
    await vault.saveIntegratorTokens(id, {
      accessToken: 'a3',
      refreshToken: 'r3',
      expiresAt: undefined,
      scope: undefined,
    });
    expect((await vault.findById(id))!.integrator!.refreshToken).toBe('r3');
    expect((await vault.findById(id))!.state).toBe('ready');
  });

  it('binds each ciphertext to its row: a value copied to another row does not open [aad]', async () => {
    const vault = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const a = await vault.ensure(installation, people['admin@demo.test']!);
    const b = await vault.ensure(installation, people['editor@demo.test']!);
    await t.db.query(
      `UPDATE addon_authorizations SET integrator_access_token_encrypted = (SELECT integrator_access_token_encrypted FROM addon_authorizations WHERE id = $1) WHERE id = $2`,
      [a.id, b.id],
    );
    await expect(vault.findById(b.id)).rejects.toThrow(SecretBoxError);
    await t.db.query('UPDATE addon_authorizations SET integrator_access_token_encrypted = NULL WHERE id = $1', [b.id]);
  });

  it('re-seals values of a retired key with the current key when read [key rotation]', async () => {
    const old = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const { id } = await old.ensure(installation, people['member@demo.test']!);
    await old.saveServiceTokens(id, { accessToken: 'sa', refreshToken: 'sr', expiresAt: undefined, scope: 'people' }, [
      'people',
    ]);
    await old.setState(id, 'integrator_pending');
    await old.saveIntegratorTokens(
      id,
      { accessToken: 'ia', refreshToken: 'ir', expiresAt: undefined, scope: undefined },
      { state: 'ready' },
    );
    const before = await sealedColumns(id);

    const rotated = createTokenVault(t.db, createSecretBox([NEW_KEY, TEST_ENCRYPTION_KEY]));
    const record = await rotated.findById(id);
    expect(record!.service).toMatchObject({ accessToken: 'sa', refreshToken: 'sr' });
    expect(record!.integrator).toMatchObject({ accessToken: 'ia', refreshToken: 'ir' });
    const after = await sealedColumns(id);
    expect(after.encryption_key_id).toBe('k2');
    for (const column of [
      'service_access_token_encrypted',
      'service_refresh_token_encrypted',
      'integrator_access_token_encrypted',
      'integrator_refresh_token_encrypted',
    ]) {
      expect(after[column]).toMatch(/^v1\.k2\./);
      expect(after[column]).not.toBe(before[column]);
    }
    // The old key can now be removed from the configuration.
    const onlyNew = createTokenVault(t.db, createSecretBox([NEW_KEY]));
    expect((await onlyNew.findById(id))!.integrator!.accessToken).toBe('ia');
  });
});
