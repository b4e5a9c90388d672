/**
 * The CLI's sign-in to a host: an OAuth 2.0 authorization code flow with PKCE (S256) from a public native client,
 * the host's own `addon-kit-cli`, redirected to a loopback listener on a port chosen now (RFC 8252 §7.3: the host's
 * OAuth server matches a native client's loopback redirect URI on any port). The person signs in and consents in
 * their browser; the code comes back to this process and is exchanged at once. openid-client does the protocol.
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.3
 * @see https://www.rfc-editor.org/rfc/rfc7636
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { CLI_CLIENT_ID } from '../../oauth/applications.ts';
import type { CommandIo } from '../io.ts';
import type { StoredCredentials } from './credential-store.ts';
import { openBrowser } from './open-browser.ts';

/** What the CLI asks for: who the person is, and the add-on registry. */
export const CLI_SCOPE = 'openid addons';
/** How long a sign-in waits for the browser before giving up. */
const SIGN_IN_TIMEOUT_MS = 10 * 60_000;

/** A sign-in that could not be completed: printed as one line. */
export class SignInError extends Error {
  readonly code = 'sign_in_failed';
}

/** The host as an OAuth server, found by discovery (plain http allowed: development hosts run on localhost). */
export async function hostServer(host: string): Promise<client.Configuration> {
  try {
    return await client.discovery(new URL(host), CLI_CLIENT_ID, undefined, client.None(), {
      ...(host.startsWith('http:') ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    const reason =
      (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED'
        ? 'nothing answers there'
        : (error as Error).message;
    throw new SignInError(`cannot reach the host at ${host} (${reason}); is it running (npm start)?`);
  }
}

/** The credentials a token response gives. */
export function credentialsOf(
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  previous?: StoredCredentials,
): StoredCredentials {
  const claims = tokens.id_token ? tokens.claims() : undefined;
  return {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? previous?.refresh_token,
    expires_at: tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000,
    email: typeof claims?.email === 'string' ? claims.email : previous?.email,
    name: typeof claims?.name === 'string' ? claims.name : previous?.name,
  };
}

/** A small page for the browser tab the flow ends in. */
function sendPage(res: ServerResponse, status: number, title: string, text: string): void {
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
    })
    .end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
        `<body><main><h1>${escape(title)}</h1><p>${escape(text)}</p></main></body></html>`,
    );
}

/** Signs in to `host` through the browser; resolves with the new credentials (not stored yet). */
export async function signIn(
  host: string,
  io: CommandIo,
  options: { openBrowser: boolean; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<StoredCredentials> {
  const server = await hostServer(host);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const challenge = await client.calculatePKCECodeChallenge(verifier);
  let settle: { resolve: (c: StoredCredentials) => void; reject: (e: Error) => void } | undefined;
  const done = new Promise<StoredCredentials>((resolve, reject) => (settle = { resolve, reject }));
  let redirectUri = '';
  const listener = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (req.method !== 'GET' || url.pathname !== '/callback') return sendPage(res, 404, 'Not found', 'Nothing here.');
    const error = url.searchParams.get('error');
    if (error) {
      sendPage(res, 400, 'Not signed in', 'The sign-in was not completed. Go back to the terminal.');
      const described = url.searchParams.get('error_description');
      return settle?.reject(
        new SignInError(`the host refused the sign-in: ${error}${described ? ` (${described})` : ''}`),
      );
    }
    client.authorizationCodeGrant(server, url, { pkceCodeVerifier: verifier, expectedState: state }).then(
      (tokens) => {
        sendPage(res, 200, 'Signed in', `The addon-kit CLI is signed in to ${host}. You can close this tab.`);
        settle?.resolve(credentialsOf(tokens));
      },
      (failure: Error) => {
        sendPage(res, 400, 'Not signed in', 'The sign-in could not be completed. Go back to the terminal.');
        settle?.reject(new SignInError(`the sign-in could not be completed: ${failure.message}`));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const timer = setTimeout(
    () => settle?.reject(new SignInError('no sign-in within 10 minutes; run the command again')),
    options.timeoutMs ?? SIGN_IN_TIMEOUT_MS,
  );
  try {
    redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
    const url = client.buildAuthorizationUrl(server, {
      redirect_uri: redirectUri,
      scope: CLI_SCOPE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    io.err(`addon-kit: sign in to ${host} in your browser to continue: ${url.href}`);
    if (options.openBrowser) await openBrowser(url.href, options.env);
    return await done;
  } finally {
    clearTimeout(timer);
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}

/** New credentials from the refresh token (rotated by the host); undefined when the host no longer accepts it. */
export async function refreshCredentials(
  host: string,
  stored: StoredCredentials,
): Promise<StoredCredentials | undefined> {
  if (!stored.refresh_token) return undefined;
  const server = await hostServer(host);
  try {
    return credentialsOf(await client.refreshTokenGrant(server, stored.refresh_token), stored);
  } catch (error) {
    if (error instanceof client.ResponseBodyError) return undefined;
    throw error;
  }
}
