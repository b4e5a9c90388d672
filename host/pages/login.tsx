/**
 * `/login` (GET form, POST email + password) and `POST /logout` of the host session. Works without
 * JavaScript; every POST is CSRF-checked, even the login form (login CSRF).
 */
import { Router, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { verifyPassword } from '../crypto/passwords.ts';
import { loadPersonByEmail } from '../auth/person.ts';
import { endHostLogin, ensureCsrfToken, getHostSession, safeReturnTo, startHostLogin } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { hasNul } from '../db/storable-text.ts';
import { clientAddress } from '../http/client-address.ts';
import type { SignInThrottle } from '../limits/sign-in-throttle.ts';
import { Banner, CsrfField, Field, Layout, sendPage } from './render.tsx';

/** What a failed login says, whatever went wrong (no telling which e-mails exist). */
export const LOGIN_FAILED = 'The e-mail address or password is incorrect.';

/** The login form. `action` lets the OAuth interaction reuse it. */
export function LoginForm(props: {
  action: string;
  csrfToken: string;
  email?: string;
  error?: string;
  returnTo?: string;
  heading?: string;
  note?: string;
}): VNode {
  return (
    <Layout title="Log in" width="narrow">
      <h1>{props.heading ?? 'Log in'}</h1>
      <p class="ak-lede">{props.note ?? 'Use the e-mail address and password of your account.'}</p>
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      <form method="post" action={props.action}>
        <CsrfField token={props.csrfToken} />
        {props.returnTo ? <input type="hidden" name="return_to" value={props.returnTo} /> : null}
        <Field id="email" label="E-mail">
          {(aria) => (
            <input {...aria} type="email" name="email" autoComplete="username" required value={props.email ?? ''} />
          )}
        </Field>
        <Field id="password" label="Password">
          {(aria) => <input {...aria} type="password" name="password" autoComplete="current-password" required />}
        </Field>
        <button type="submit" class="ak-button--primary ak-button--block">
          Log in
        </button>
      </form>
    </Layout>
  );
}

/** What a sign-in attempt came to. */
export type LoginResult = { personId: string } | { failed: true } | { retryAfterSeconds: number };

/** What a throttled sign-in says, with the wait rounded up to what a person reads. */
export function throttledMessage(retryAfterSeconds: number): string {
  const wait =
    retryAfterSeconds < 120 ? `${retryAfterSeconds} seconds` : `${Math.ceil(retryAfterSeconds / 60)} minutes`;
  return `Too many failed sign-ins. Try again in ${wait}.`;
}

/**
 * Checks an e-mail and password under the sign-in throttle (host/limits/sign-in-throttle.ts): a locked
 * account, address or pair answers at once, without hashing the password.
 */
export async function checkLogin(
  deps: { db: Queryable; throttle: SignInThrottle },
  email: unknown,
  password: unknown,
  address: string,
): Promise<LoginResult> {
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return { failed: true };
  const account = email.slice(0, 320);
  const permit = await deps.throttle.permit(account, address);
  if (!permit.allowed) return { retryAfterSeconds: permit.retryAfterSeconds };
  try {
    // No stored e-mail holds a NUL character (PostgreSQL text cannot): a failed login like any other.
    const person = hasNul(account) ? undefined : await loadPersonByEmail(deps.db, account);
    const ok = await verifyPassword(password, person?.password_hash);
    if (ok && person?.status === 'active') {
      await deps.throttle.succeeded(account, address);
      return { personId: person.id };
    }
    await deps.throttle.failed(account, address);
    return { failed: true };
  } finally {
    permit.release();
  }
}

/** Renders the login form again after a failed or throttled attempt (401, or 429 with Retry-After). */
export function sendLoginFailure(
  res: Response,
  result: Exclude<LoginResult, { personId: string }>,
  form: (error: string) => VNode,
  options: { formAction?: readonly string[] } = {},
): void {
  if ('retryAfterSeconds' in result) {
    res.set('Retry-After', String(result.retryAfterSeconds));
    sendPage(res, 429, form(throttledMessage(result.retryAfterSeconds)), options);
    return;
  }
  sendPage(res, 401, form(LOGIN_FAILED), options);
}

/** Routes `/login` and `/logout`. */
export function loginRouter(deps: { db: Queryable; throttle: SignInThrottle }): Router {
  const router = Router();
  router.get('/login', async (req, res) => {
    const session = await getHostSession(req, res);
    const returnTo = safeReturnTo(req.query.return_to);
    const csrfToken = await ensureCsrfToken(session);
    sendPage(res, 200, <LoginForm action="/login" csrfToken={csrfToken} returnTo={returnTo} />);
  });
  router.post('/login', requireCsrf, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    const result = await checkLogin(deps, body.email, body.password, clientAddress(req));
    const session = await getHostSession(req, res);
    if (!('personId' in result)) {
      const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
      const csrfToken = await ensureCsrfToken(session);
      sendLoginFailure(res, result, (error) => (
        <LoginForm action="/login" csrfToken={csrfToken} email={email} error={error} returnTo={returnTo} />
      ));
      return;
    }
    await startHostLogin(req, res, result.personId);
    res.redirect(303, returnTo);
  });
  router.post('/logout', requireCsrf, async (req, res) => {
    await endHostLogin(req, res);
    res.redirect(303, '/login');
  });
  return router;
}
