/**
 * `addon-kit login [--host URL] [--no-browser]` and `addon-kit logout [--host URL]`: the CLI signs in to a host as
 * an OAuth client of it (auth/sign-in.ts) and keeps the tokens for that host in the user's config directory
 * (auth/credential-store.ts); `addon push|promote|dev` use them. `logout` revokes them at the host and forgets them.
 * @example addon-kit login
 * @example addon-kit login --host http://localhost:4000 --no-browser
 */
import * as client from 'openid-client';
import { parse } from './args.ts';
import { credentialsFile, readCredentials, writeCredentials } from './auth/credential-store.ts';
import { signInAndStore } from './auth/registry-auth.ts';
import { hostServer, SignInError } from './auth/sign-in.ts';
import { LOGIN_FORM, LOGOUT_FORM } from './command-specs.ts';
import { hostUrl } from './host-url.ts';
import type { CommandIo } from './io.ts';

/** Runs `login`; resolves with the exit code. */
export async function loginCommand(argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env) {
  const { values } = parse(argv, LOGIN_FORM.options);
  const host = hostUrl(values.host, env);
  try {
    await signInAndStore(host, io, { env, openBrowser: !values['no-browser'] });
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    io.err(`addon-kit login: ${error.message}`);
    return 1;
  }
  io.out(`signed in to ${host}; the tokens are in ${credentialsFile(env)}`);
  return 0;
}

/** Runs `logout`; resolves with the exit code. */
export async function logoutCommand(argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env) {
  const { values } = parse(argv, LOGOUT_FORM.options);
  const host = hostUrl(values.host, env);
  const stored = await readCredentials(host, env);
  if (!stored) {
    io.out(`not signed in to ${host}`);
    return 0;
  }
  // Revoking the refresh token ends the whole grant at the host (its access tokens too).
  try {
    await client.tokenRevocation(await hostServer(host), stored.refresh_token ?? stored.access_token);
  } catch (error) {
    io.err(`addon-kit logout: the host did not revoke the tokens (${(error as Error).message}); forgetting them here`);
  }
  await writeCredentials(host, undefined, env);
  io.out(`signed out of ${host}`);
  return 0;
}
