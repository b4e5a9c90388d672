/** Authorization requests as the host builds them (step 4), and driving one through sign-in and consent. */
import { createHash, randomBytes } from 'node:crypto';
import { CheckFailed } from '../doctor-checks.ts';
import type { DoctorSession } from '../doctor-session.ts';
import { parseForm } from '../html-form.ts';

/** One authorization request: its URL and the state and PKCE verifier it was made with. */
export interface AuthorizationAttempt {
  url: string;
  state: string;
  verifier: string;
  redirectUri: string;
}

/** A page the authorize endpoint showed (after same-origin redirects). */
export interface AuthorizePage {
  html: string;
  url: string;
}

/** The host's authorization request (PKCE S256, state), with optional changes for the refusal checks. */
export function authorizationRequest(
  session: DoctorSession,
  changes: { clientId?: string; redirectUri?: string; pkce?: boolean } = {},
): AuthorizationAttempt {
  const { options } = session;
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const redirectUri = changes.redirectUri ?? options.redirectUri;
  const url = new URL(options.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', changes.clientId ?? options.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  if (changes.pkce !== false) {
    url.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  if (options.scope) url.searchParams.set('scope', options.scope);
  return { url: url.toString(), state, verifier, redirectUri };
}

/** True when `location` is the host's redirect URI (same origin and path; the query carries the response). */
export function isRedirectUri(location: string, redirectUri: string): boolean {
  try {
    const a = new URL(location);
    const b = new URL(redirectUri);
    return a.origin === b.origin && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

/**
 * Opens an authorization request, signs in with the doctor's test user when a login form comes, and
 * allows; returns where the consent sent the browser.
 */
export async function authorizeAndConsent(
  session: DoctorSession,
  attempt: AuthorizationAttempt,
  opened?: AuthorizePage,
): Promise<URL> {
  const login = session.options.login;
  let page = opened ?? (await openPage(session, attempt.url));
  let form = parseForm(page.html, page.url);
  if (form?.passwordField) {
    if (!login)
      throw new CheckFailed(
        'a login form came and no test user was given',
        'Give the doctor a test user of the integrator to sign in with.',
      );
    const fields = new URLSearchParams([...form.fields]);
    fields.set(form.textField ?? 'username', login.username);
    fields.set(form.passwordField, login.password);
    const res = await session.postForm(form.action, fields);
    const location = res.headers.get('location');
    await res.body?.cancel();
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new CheckFailed(
        `login answered ${res.status}`,
        'Check the test user name and password given to the doctor.',
      );
    }
    page = await openPage(session, new URL(location, form.action).toString());
    form = parseForm(page.html, page.url);
  }
  const allow = form?.buttons.find((b) => /^(allow|approve|accept|yes)$/i.test(b.value)) ?? form?.buttons[0];
  if (!form || form.method !== 'post' || !allow) {
    throw new CheckFailed('no consent form found', 'The authorize page must show a form that POSTs the decision back.');
  }
  const fields = new URLSearchParams([...form.fields]);
  fields.set(allow.name, allow.value);
  const res = await session.postForm(form.action, fields);
  const location = res.headers.get('location');
  await res.body?.cancel();
  if (
    res.status < 300 ||
    res.status >= 400 ||
    !location ||
    !isRedirectUri(new URL(location, form.action).toString(), attempt.redirectUri)
  ) {
    throw new CheckFailed(
      `consent answered ${res.status} ${location ?? ''}`.trim(),
      'After Allow, redirect (302/303) to the exact redirect_uri with code and state (RFC 6749 §4.1.2).',
    );
  }
  return new URL(location, form.action);
}

/** GETs a page of the authorize flow (following same-origin redirects); it must be 200. */
async function openPage(session: DoctorSession, url: string): Promise<AuthorizePage> {
  const { res, url: at } = await session.follow(url);
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new CheckFailed(
      `the authorize page answered ${res.status} ${res.headers.get('location') ?? ''}`.trim(),
      'After login, return the person to the authorize request.',
    );
  }
  return { html: await res.text(), url: at };
}
