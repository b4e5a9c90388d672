import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateSecrets, missingSecrets } from '#host/secrets.ts';
import { TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET } from '../support/constants.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'addon-kit-secrets-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe('missingSecrets()', () => {
  it('returns nothing and writes nothing when both secrets are configured [configured]', async () => {
    const configured = { sessionSecret: TEST_SESSION_SECRET, encryptionKeys: [TEST_ENCRYPTION_KEY] };
    expect(await missingSecrets(dataDir, configured)).toEqual({});
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('fills only the secret that is not configured, from the data directory [one configured]', async () => {
    const generated = await loadOrCreateSecrets(dataDir);
    expect(await missingSecrets(dataDir, { sessionSecret: TEST_SESSION_SECRET })).toEqual({
      encryptionKeys: generated.encryptionKeys,
    });
    expect(await missingSecrets(dataDir, { encryptionKeys: [TEST_ENCRYPTION_KEY] })).toEqual({
      sessionSecret: generated.sessionSecret,
    });
  });

  it('generates both once and keeps them across calls [none configured]', async () => {
    const first = await missingSecrets(dataDir, {});
    expect(first.sessionSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.encryptionKeys).toEqual([{ id: 'k1', key: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) }]);
    expect(await missingSecrets(dataDir, {})).toEqual(first);
    expect(await readdir(dataDir)).toEqual(['secrets.json']);
  });
});
