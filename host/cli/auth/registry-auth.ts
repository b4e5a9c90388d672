/**
 * The credentials the CLI sends to a host's add-on registry: a personal access token from
 * `ADDON_KIT_PAT_CLIENT_ID` / `ADDON_KIT_PAT_SECRET` when set (CI), else the CLI's own sign-in for that host
 * (`addon-kit login`), refreshed when it expires or the host refuses it, and — where a person is there to answer
 * (`interactive`, never with `CI` set) — a sign-in through the browser when there is none.
 */
import { UsageError } from '../args.ts';
import type { CommandIo } from '../io.ts';
import { readCredentials, writeCredentials, type StoredCredentials } from './credential-store.ts';
import { refreshCredentials, signIn } from './sign-in.ts';

/** Refresh this long before the access token expires. */
const EXPIRY_MARGIN_MS = 60_000;

/** An `Authorization` header for the registry, and a second one after the host answered 401 to the first. */
export interface RegistryAuth {
  header(): Promise<string>;
  /** After a 401: a header worth one more try, or undefined (a personal access token, or nothing new). */
  renew(): Promise<string | undefined>;
}

/** How `registryAuth` may get credentials. */
export interface RegistryAuthOptions {
  env: NodeJS.ProcessEnv;
  /** May sign in through the browser when there are no credentials (false: say how to sign in instead). */
  interactive: boolean;
  /** Open the sign-in page in a browser (`--no-browser` turns it off). */
  openBrowser?: boolean;
}

/** Signs in through the browser and stores the credentials; prints who signed in. */
export async function signInAndStore(
  host: string,
  io: CommandIo,
  options: { env: NodeJS.ProcessEnv; openBrowser: boolean },
): Promise<StoredCredentials> {
  const credentials = await signIn(host, io, options);
  await writeCredentials(host, credentials, options.env);
  const who = credentials.email
    ? ` as ${credentials.name ? `${credentials.name} <${credentials.email}>` : credentials.email}`
    : '';
  io.err(`addon-kit: signed in to ${host}${who}`);
  return credentials;
}

/** The registry credentials for `host` (see the module comment). */
export function registryAuth(host: string, io: CommandIo, options: RegistryAuthOptions): RegistryAuth {
  const { env } = options;
  const id = env.ADDON_KIT_PAT_CLIENT_ID;
  const secret = env.ADDON_KIT_PAT_SECRET;
  if (id || secret) {
    if (!id || !secret) throw new UsageError('set both ADDON_KIT_PAT_CLIENT_ID and ADDON_KIT_PAT_SECRET, or neither');
    const basic = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    return { header: async () => basic, renew: async () => undefined };
  }
  const canSignIn = options.interactive && !env.CI;
  const signInNow = async (): Promise<StoredCredentials> => {
    if (!canSignIn)
      throw new UsageError(
        `not signed in to ${host}: run \`addon-kit login --host ${host}\` (or set ADDON_KIT_PAT_CLIENT_ID and ` +
          'ADDON_KIT_PAT_SECRET to a personal access token of an organization administrator)',
      );
    return signInAndStore(host, io, { env, openBrowser: options.openBrowser ?? true });
  };
  const refreshed = async (stored: StoredCredentials): Promise<StoredCredentials | undefined> => {
    const next = await refreshCredentials(host, stored);
    await writeCredentials(host, next, env);
    return next;
  };
  let current: StoredCredentials | undefined;
  return {
    async header() {
      current ??= await readCredentials(host, env);
      if (current?.expires_at !== undefined && current.expires_at - EXPIRY_MARGIN_MS < Date.now())
        current = await refreshed(current);
      current ??= await signInNow();
      return `Bearer ${current.access_token}`;
    },
    async renew() {
      current = (current && (await refreshed(current))) ?? (canSignIn ? await signInNow() : undefined);
      return current && `Bearer ${current.access_token}`;
    },
  };
}
