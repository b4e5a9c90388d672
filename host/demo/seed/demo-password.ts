/**
 * The demo logins' password: chosen (or generated) when the demo data is first seeded and kept in
 * `<dataDir>/demo-password` (mode 0600) so `start` can print it again; only its scrypt hash is in the database.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE = 'demo-password';

/** The remembered password, if this data directory seeded the demo data. */
export async function readDemoPassword(dataDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(dataDir, FILE), 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the password used for a first seed. */
export async function rememberDemoPassword(dataDir: string, password: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, FILE), `${password}\n`, { mode: 0o600 });
}

/** A new random password (16 characters, URL-safe). */
export function generateDemoPassword(): string {
  return randomBytes(12).toString('base64url');
}
