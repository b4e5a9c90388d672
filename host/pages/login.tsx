/**
 * `/login` (GET form, POST email + password) and `POST /logout` of the host session. Works without
 * JavaScript; every POST is CSRF-checked, even the login form (login CSRF).
 */
import { Router } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { loadPersonByEmail } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, safeReturnTo, startHostLogin } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { Banner, CsrfField, Field, Layout, sendPage } from './render.tsx';

/** What a failed login says, whatever went wrong (no telling which e-mails exist). */
export const LOGIN_FAILED = 'The e-mail address or password is incorrect.';

/** The login form. `action` lets the OAuth interaction reuse it. */
export function LoginForm(props: { action: string; csrfToken: string; email?: string; error?: string; returnTo?: string; heading?: string; note?: string }): VNode {
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
          {(aria) => <input {...aria} type="email" name="email" autoComplete="username" required value={props.email ?? ''} />}
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

/** Checks an e-mail and password; the active person's id, or undefined. */
export async function checkLogin(db: Queryable, email: unknown, password: unknown): Promise<string | undefined> {
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return undefined;
  const person = await loadPersonByEmail(db, email.slice(0, 320));
  const ok = await verifyPassword(password, person?.password_hash);
  return ok && person?.status === 'active' ? person.id : undefined;
}

/** Routes `/login` and `/logout`. */
export function loginRouter(deps: { db: Queryable }): Router {
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
    const personId = await checkLogin(deps.db, body.email, body.password);
    const session = await getHostSession(req, res);
    if (!personId) {
      const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
      sendPage(res, 401, <LoginForm action="/login" csrfToken={await ensureCsrfToken(session)} email={email} error={LOGIN_FAILED} returnTo={returnTo} />);
      return;
    }
    await startHostLogin(session, personId);
    res.redirect(303, returnTo);
  });
  router.post('/logout', requireCsrf, async (req, res) => {
    const session = await getHostSession(req, res);
    session.destroy();
    res.redirect(303, '/login');
  });
  return router;
}
