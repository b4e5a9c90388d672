/**
 * Development secrets: when no session secret or encryption key is configured, one is generated
 * once and kept in `<dataDir>/secrets.json` (mode 0600) so restarts keep sessions and ciphertexts.
 * Production sets ADDON_KIT_SESSION_SECRET and ADDON_KIT_ENCRYPTION_KEYS instead, and those always win: a host that
 * joins others on one database must seal and decrypt with their secrets, never with ones it made up.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface GeneratedSecrets {
  sessionSecret: string;
  encryptionKeys: { id: string; key: string }[];
}

function generate(): GeneratedSecrets {
  return {
    sessionSecret: randomBytes(32).toString('base64url'),
    encryptionKeys: [{ id: 'k1', key: randomBytes(32).toString('base64') }],
  };
}

/** Loads the data directory's secrets, creating them on first use; memory-only hosts get fresh ones. */
export async function loadOrCreateSecrets(dataDir: string): Promise<GeneratedSecrets> {
  if (dataDir === 'memory://') return generate();
  const file = join(dataDir, 'secrets.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as GeneratedSecrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets = generate();
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  return JSON.parse(await readFile(file, 'utf8')) as GeneratedSecrets;
}

/**
 * The secrets the configuration lacks, from the data directory (generated there on first use). Configured ones
 * (environment or options) are left out, so they win; with both configured nothing is read or written.
 */
export async function missingSecrets(
  dataDir: string,
  configured: { sessionSecret?: unknown; encryptionKeys?: unknown },
): Promise<Partial<GeneratedSecrets>> {
  const needSession = configured.sessionSecret === undefined;
  const needKeys = configured.encryptionKeys === undefined;
  if (!needSession && !needKeys) return {};
  const generated = await loadOrCreateSecrets(dataDir);
  return {
    ...(needSession ? { sessionSecret: generated.sessionSecret } : {}),
    ...(needKeys ? { encryptionKeys: generated.encryptionKeys } : {}),
  };
}
