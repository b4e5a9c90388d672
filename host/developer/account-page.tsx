/**
 * Developer account: the person's own login — change the password (every other session is logged out),
 * "sign out everywhere" (every session of the person, this one included, is revoked) —, the console tokens
 * /docs issued to them (console-tokens-section.tsx) and the add-ons they have authorized
 * (addon-authorizations-section.tsx).
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { authorizedAddons, type PersonAuthorization, type RevokeDeps } from '../addons/index.ts';
import { changePassword, PASSWORD_LENGTH, type PasswordChangeProblem } from '../auth/change-password.ts';
import { listConsoleTokens, type ConsoleTokenRow } from '../auth/console-tokens.ts';
import { requireCsrf } from '../auth/csrf.ts';
import { revokePersonSessions } from '../auth/host-sessions.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { clientAddress } from '../http/client-address.ts';
import type { SignInThrottle } from '../limits/sign-in-throttle.ts';
import { throttledMessage } from '../pages/login.tsx';
import { Banner, CsrfField, Field, sendPage } from '../pages/render.tsx';
import { AddonAuthorizationsSection, addonAuthorizationRoutes } from './addon-authorizations-section.tsx';
import { ConsoleTokensSection, consoleTokenRoutes } from './console-tokens-section.tsx';
import { DeveloperLayout } from './layout.tsx';

/** What each refusal of a password change says, and beside which field. */
const PROBLEMS: Record<PasswordChangeProblem, { field: 'current_password' | 'new_password'; message: string }> = {
  wrong_current_password: { field: 'current_password', message: 'The current password is incorrect.' },
  too_short: { field: 'new_password', message: `Use at least ${PASSWORD_LENGTH.min} characters.` },
  too_long: { field: 'new_password', message: `Use at most ${PASSWORD_LENGTH.max} characters.` },
  unchanged: { field: 'new_password', message: 'The new password must differ from the current one.' },
};

/** The password form, each refusal beside its field. */
function ChangePasswordSection(props: { csrfToken: string; problem?: PasswordChangeProblem | undefined }): VNode {
  const problem = props.problem ? PROBLEMS[props.problem] : undefined;
  return (
    <section class="ak-card" aria-labelledby="change-password">
      <h2 id="change-password">Change password</h2>
      <form method="post" action="/developer/account/password">
        <CsrfField token={props.csrfToken} />
        <Field
          id="current_password"
          label="Current password"
          error={problem?.field === 'current_password' ? problem.message : undefined}
        >
          {(aria) => (
            <input {...aria} type="password" name="current_password" autoComplete="current-password" required />
          )}
        </Field>
        <Field
          id="new_password"
          label="New password"
          hint={`At least ${PASSWORD_LENGTH.min} characters. Your other sessions will be logged out.`}
          error={problem?.field === 'new_password' ? problem.message : undefined}
        >
          {(aria) => (
            <input
              {...aria}
              type="password"
              name="new_password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_LENGTH.min}
              maxLength={PASSWORD_LENGTH.max}
            />
          )}
        </Field>
        <button type="submit" class="ak-button--primary">
          Change password
        </button>
      </form>
    </section>
  );
}

/** The account page: the password form, the sign-out-everywhere button, the console tokens and the add-ons. */
export function AccountPage(props: {
  person: PersonRecord;
  csrfToken: string;
  consoleTokens: readonly ConsoleTokenRow[];
  /** A refused console-token revocation. */
  consoleError?: string;
  addonAuthorizations: readonly PersonAuthorization[];
  /** An add-on authorization was just revoked. */
  addonRevoked?: boolean;
  /** A refused add-on revocation. */
  addonError?: string;
  problem?: PasswordChangeProblem;
  changed?: boolean;
  /** Too many wrong current passwords: the sign-in throttle's message. */
  throttled?: string;
}): VNode {
  return (
    <DeveloperLayout
      title="Account"
      lede="Your password, where you are logged in, the API reference's console tokens and the add-ons you have authorized."
      person={props.person}
      csrfToken={props.csrfToken}
      tab="account"
    >
      {props.changed ? (
        <Banner tone="success" id="password-changed">
          <p>Your password was changed. Every other session of yours was logged out.</p>
        </Banner>
      ) : null}
      {props.throttled ? (
        <Banner tone="critical">
          <p>{props.throttled}</p>
        </Banner>
      ) : null}
      <ChangePasswordSection csrfToken={props.csrfToken} problem={props.problem} />
      <section class="ak-card" aria-labelledby="sign-out-everywhere">
        <h2 id="sign-out-everywhere">Sign out everywhere</h2>
        <p>Logs you out on every browser and device, this one included.</p>
        <form method="post" action="/developer/account/sign-out-everywhere">
          <CsrfField token={props.csrfToken} />
          <button type="submit" class="ak-button--danger">
            Sign out everywhere
          </button>
        </form>
      </section>
      <ConsoleTokensSection tokens={props.consoleTokens} csrfToken={props.csrfToken} error={props.consoleError} />
      <AddonAuthorizationsSection
        authorizations={props.addonAuthorizations}
        csrfToken={props.csrfToken}
        revoked={props.addonRevoked}
        error={props.addonError}
      />
    </DeveloperLayout>
  );
}

const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/**
 * Routes under `/developer/account` (behind requireHostLogin). The current password is checked under the
 * sign-in throttle, so a borrowed session cannot be used to guess the password either.
 */
export function accountPages(deps: {
  db: Queryable;
  throttle: SignInThrottle;
  now?: (() => Date) | undefined;
  /** What revoking an add-on authorization needs (the add-on runtime's). */
  addonRevoking: RevokeDeps;
}): Router {
  const router = Router();
  type Extra = {
    problem?: PasswordChangeProblem;
    changed?: boolean;
    throttled?: string;
    consoleError?: string;
    addonRevoked?: boolean;
    addonError?: string;
  };
  const show = async (req: Request, res: Response, status: number, extra: Extra = {}) => {
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const person = hostPersonOf(req);
    const consoleTokens = await listConsoleTokens(deps.db, person.id, deps.now?.() ?? new Date());
    const addonAuthorizations = await authorizedAddons(deps.db, person);
    sendPage(
      res,
      status,
      <AccountPage
        person={person}
        csrfToken={csrfToken}
        consoleTokens={consoleTokens}
        addonAuthorizations={addonAuthorizations}
        {...extra}
      />,
    );
  };
  router.use(consoleTokenRoutes({ db: deps.db, show }));
  router.use(addonAuthorizationRoutes({ revoking: deps.addonRevoking, show }));
  router.get('/account', async (req, res) =>
    show(req, res, 200, {
      ...(req.query.changed === '1' ? { changed: true } : {}),
      ...(req.query.addon_revoked === '1' ? { addonRevoked: true } : {}),
    }),
  );
  router.post('/account/password', requireCsrf, async (req, res) => {
    const session = await getHostSession(req, res);
    const person = hostPersonOf(req);
    const account = person.email ?? `person:${person.id}`;
    const address = clientAddress(req);
    const permit = await deps.throttle.permit(account, address);
    if (!permit.allowed) {
      res.set('Retry-After', String(permit.retryAfterSeconds));
      return show(req, res, 429, { throttled: throttledMessage(permit.retryAfterSeconds) });
    }
    try {
      const result = await changePassword(deps.db, {
        personId: person.id,
        current: field(req, 'current_password'),
        next: field(req, 'new_password'),
        keepSessionId: session.sessionId,
      });
      if (!result.ok && result.problem === 'wrong_current_password') await deps.throttle.failed(account, address);
      if (!result.ok)
        return show(req, res, result.problem === 'wrong_current_password' ? 401 : 422, { problem: result.problem });
      await deps.throttle.succeeded(account, address);
    } finally {
      permit.release();
    }
    res.redirect(303, '/developer/account?changed=1');
  });
  router.post('/account/sign-out-everywhere', requireCsrf, async (req, res) => {
    await revokePersonSessions(deps.db, hostPersonOf(req).id);
    (await getHostSession(req, res)).destroy();
    res.redirect(303, '/login');
  });
  return router;
}
