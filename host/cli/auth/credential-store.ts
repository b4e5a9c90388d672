/**
 * The CLI's tokens, per host, in the user's config directory: `$XDG_CONFIG_HOME/addon-kit/credentials.json` (or
 * `~/.config/addon-kit/credentials.json`), readable by its owner only (file 0600 in a folder 0700), written whole to
 * a temporary file and renamed over, so a reader never sees half a file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the CLI keeps of a sign-in to one host. */
export interface StoredCredentials {
  access_token: string;
  refresh_token?: string | undefined;
  /** When the access token expires (ms since the epoch); undefined: unknown. */
  expires_at?: number | undefined;
  /** Who signed in, as the host's ID token names them. */
  email?: string | undefined;
  name?: string | undefined;
}

/** The folder the CLI keeps its settings in. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : undefined;
  return join(base ?? join(homedir(), '.config'), 'addon-kit');
}

/** The credentials file. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json');
}

/** A host's key in the file: its origin and path, without a trailing slash. */
export function hostKey(host: string): string {
  return host.replace(/\/+$/, '');
}

async function readAll(env: NodeJS.ProcessEnv): Promise<Record<string, StoredCredentials>> {
  const text = await readFile(credentialsFile(env), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '{}';
    throw error;
  });
  try {
    const parsed = JSON.parse(text) as { hosts?: Record<string, StoredCredentials> };
    return parsed.hosts ?? {};
  } catch {
    // A damaged file is as good as none: the next sign-in writes it anew.
    return {};
  }
}

async function writeAll(env: NodeJS.ProcessEnv, hosts: Record<string, StoredCredentials>): Promise<void> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ hosts }, null, 2)}\n`, { mode: 0o600 });
  // The mode of a file that existed before is kept by writeFile: set it again.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/** The stored credentials of a host, if any. */
export async function readCredentials(
  host: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StoredCredentials | undefined> {
  return (await readAll(env))[hostKey(host)];
}

/** Stores (or, with `undefined`, forgets) a host's credentials; other hosts' are kept. */
export async function writeCredentials(
  host: string,
  credentials: StoredCredentials | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const hosts = await readAll(env);
  if (credentials) hosts[hostKey(host)] = credentials;
  else delete hosts[hostKey(host)];
  await writeAll(env, hosts);
}
