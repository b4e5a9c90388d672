/**
 * The provider's interaction pages at `/oauth/interaction/:uid`: login, account chooser, consent and
 * the access_mode refusal (access-refused-page.tsx), server-rendered, working without JavaScript, every
 * POST CSRF-checked with the host session's token.
 * Logging in here also logs in to the host; a host session already open satisfies a plain login
 * prompt (not `prompt=login`, which always asks for the password again).
 */
import { Router, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { displayName, loadPerson, type PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostSessionPerson, startHostLogin } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { clientAddress } from '../http/client-address.ts';
import type { SignInThrottle } from '../limits/sign-in-throttle.ts';
import { checkLogin, LOGIN_FAILED, LoginForm, throttledMessage } from '../pages/login.tsx';
import {
  CsrfField,
  Field,
  initialsOf,
  Layout,
  PlatformMark,
  sendMessagePage,
  sendPage,
  usePlatformName,
  viewerOf,
} from '../pages/render.tsx';
import { CONNECT_ACCESS_PROMPT, type ConnectAccessDetails } from './access-prompt.ts';
import { AccessRefusedPage } from './access-refused-page.tsx';
import { DatabaseAdapter } from './adapter.ts';
import { refusalDescription } from './application-access.ts';
import { formTargets } from './form-targets.ts';
import { HOST_SESSION_REASON } from './provider.ts';
import { isProviderScope, SCOPE_DESCRIPTIONS } from './scopes.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Consent page: names the application and the platform, and says what each scope allows. */
export function ConsentPage(props: {
  action: string;
  csrfToken: string;
  applicationName: string;
  person: PersonRecord;
  scopes: string[];
}): VNode {
  const platform = usePlatformName();
  const { applicationName: name, person } = props;
  return (
    <Layout title={`Authorize ${name}`} viewer={viewerOf(person)} nav={false} width="narrow">
      <ConnectionMark from={name} />
      <h1>Authorize {name}</h1>
      <p class="ak-lede">
        <strong>{name}</strong> asks to access your {platform} account ({displayName(person)},{' '}
        {person.organization_name}).
      </p>
      <h2 class="ak-scopes-heading">It will be able to:</h2>
      <ul class="ak-scopes">
        {props.scopes.map((scope) => (
          <li key={scope} data-scope={scope}>
            {isProviderScope(scope) ? SCOPE_DESCRIPTIONS[scope] : scope}
          </li>
        ))}
      </ul>
      <form method="post" action={props.action} class="ak-decision">
        <CsrfField token={props.csrfToken} />
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
        <button type="submit" name="decision" value="allow" class="ak-button--primary">
          Allow
        </button>
      </form>
      <p class="ak-small ak-subdued ak-consent-note">
        Allow only if you trust {name} with this access. Deny sends you back without it.
      </p>
    </Layout>
  );
}

/** The application's initial beside the platform's mark: who asks to connect to what. */
function ConnectionMark(props: { from: string }): VNode {
  return (
    <div class="ak-consent-parties" aria-hidden="true">
      <span class="ak-monogram">{(props.from.trim()[0] ?? '?').toUpperCase()}</span>
      <span class="ak-consent-link">•••</span>
      <span class="ak-monogram">
        <PlatformMark />
      </span>
    </div>
  );
}

/** Account chooser: continue as the person logged in to the host, or log in as someone else. */
export function AccountChooser(props: {
  uid: string;
  csrfToken: string;
  applicationName: string;
  person: PersonRecord;
}): VNode {
  const { person } = props;
  return (
    <Layout title="Choose an account" viewer={viewerOf(person)} nav={false} width="narrow">
      <h1>Choose an account</h1>
      <p class="ak-lede">Which account should {props.applicationName} use?</p>
      <form method="post" action={`/oauth/interaction/${props.uid}/select`}>
        <CsrfField token={props.csrfToken} />
        <button type="submit" name="account" value={person.id} class="ak-account-choice">
          <span class="ak-avatar" aria-hidden="true">
            {initialsOf(displayName(person))}
          </span>
          <span class="ak-account-choice-text">
            <span>
              Continue as {displayName(person)} ({person.email})
            </span>
            <span class="ak-subdued ak-small">{person.organization_name}</span>
          </span>
        </button>
      </form>
      <h2>Use another account</h2>
      <form method="post" action={`/oauth/interaction/${props.uid}/login`}>
        <CsrfField token={props.csrfToken} />
        <Field id="email" label="E-mail">
          {(aria) => <input {...aria} type="email" name="email" autoComplete="username" required value="" />}
        </Field>
        <Field id="password" label="Password">
          {(aria) => <input {...aria} type="password" name="password" autoComplete="current-password" required />}
        </Field>
        <button type="submit" class="ak-button--block">
          Log in
        </button>
      </form>
    </Layout>
  );
}

async function applicationName(provider: Provider, details: Details): Promise<string> {
  const client = await provider.Client.find(String(details.params.client_id));
  return client?.clientName ?? 'An application';
}

/** The page options of an interaction page: its forms may lead on to the client's redirect URIs. */
async function pageOptions(provider: Provider, details: Details): Promise<{ formAction: string[] }> {
  const client = await provider.Client.find(String(details.params.client_id));
  return { formAction: formTargets(client?.redirectUris ?? [], client?.applicationType === 'native') };
}

/** Interaction routes; oidc-provider's cookie ties each to the browser that started it. */
export function interactionRouter(deps: { provider: Provider; db: Queryable; throttle: SignInThrottle }): Router {
  const { provider, db } = deps;
  const router = Router();

  const withDetails =
    (handler: (req: Request, res: Response, details: Details) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      let details: Details;
      try {
        details = await provider.interactionDetails(req, res);
      } catch (error) {
        if (error instanceof errors.SessionNotFound || error instanceof errors.OIDCProviderError) {
          return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
        }
        throw error;
      }
      if (details.uid !== req.params.uid)
        return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
      await handler(req, res, details);
    };

  const finishLogin = async (req: Request, res: Response, details: Details, personId: string) => {
    const result = {
      login: { accountId: personId },
      ...(details.prompt.name === 'select_account' ? { select_account: {} } : {}),
    };
    const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
    // Someone else is logging in: end the provider's session of the previous person here (and detach
    // the interaction from it), rather than through oidc-provider's script-driven logout confirmation.
    if (details.session?.accountId && details.session.accountId !== personId) {
      const interaction = await provider.Interaction.find(details.uid);
      if (interaction) {
        delete interaction.session;
        await interaction.save(Math.max(interaction.exp - Math.floor(Date.now() / 1000), 1));
      }
      await new DatabaseAdapter(db, 'Session').destroy(details.session.cookie);
    }
    res.redirect(303, returnTo);
  };

  const showLogin = async (
    res: Response,
    details: Details,
    csrfToken: string,
    error?: string,
    email?: string,
    status = error ? 401 : 200,
  ) => {
    const forced = details.prompt.reasons.includes('login_prompt');
    const name = await applicationName(provider, details);
    sendPage(
      res,
      status,
      <LoginForm
        action={`/oauth/interaction/${details.uid}/login`}
        csrfToken={csrfToken}
        heading={forced ? 'Log in again' : 'Log in'}
        note={`Log in to continue to ${name}.`}
        {...(error ? { error } : {})}
        {...(email ? { email } : {})}
      />,
      await pageOptions(provider, details),
    );
  };

  router.get(
    '/oauth/interaction/:uid',
    withDetails(async (req, res, details) => {
      const session = await getHostSession(req, res);
      const csrfToken = await ensureCsrfToken(session);
      const hostPerson = await hostSessionPerson(req, res);
      const loggedIn = hostPerson?.status === 'active' ? hostPerson : undefined;
      switch (details.prompt.name) {
        case 'select_account':
          if (!loggedIn) return showLogin(res, details, csrfToken);
          return sendPage(
            res,
            200,
            <AccountChooser
              uid={details.uid}
              csrfToken={csrfToken}
              applicationName={await applicationName(provider, details)}
              person={loggedIn}
            />,
            await pageOptions(provider, details),
          );
        case 'login':
          // Single sign-on from the host login, unless the client asked for a fresh login (or max_age etc.).
          if (loggedIn && details.prompt.reasons.every((r) => r === 'no_session' || r === HOST_SESSION_REASON))
            return finishLogin(req, res, details, loggedIn.id);
          return showLogin(res, details, csrfToken);
        case 'consent': {
          const person = details.session?.accountId ? await loadPerson(db, details.session.accountId) : undefined;
          if (!person)
            return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
          const scopes = String((details.params.scope as string | undefined) ?? '')
            .split(' ')
            .filter(Boolean);
          return sendPage(
            res,
            200,
            <ConsentPage
              action={`/oauth/interaction/${details.uid}/consent`}
              csrfToken={csrfToken}
              applicationName={await applicationName(provider, details)}
              person={person}
              scopes={scopes}
            />,
            await pageOptions(provider, details),
          );
        }
        case CONNECT_ACCESS_PROMPT: {
          const person = details.session?.accountId ? await loadPerson(db, details.session.accountId) : undefined;
          if (!person)
            return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
          const { access_mode: mode } = details.prompt.details as ConnectAccessDetails;
          return sendPage(
            res,
            403,
            <AccessRefusedPage
              uid={details.uid}
              csrfToken={csrfToken}
              viewer={viewerOf(person)}
              refusal={{
                mode,
                organizationName: person.organization_name,
                applicationName: await applicationName(provider, details),
              }}
            />,
            // Its button ends at the client's redirect_uri with access_denied: the form may go there.
            await pageOptions(provider, details),
          );
        }
        default:
          return sendMessagePage(
            res,
            400,
            'Unsupported request',
            'This authorization request cannot be completed here.',
          );
      }
    }),
  );

  router.post(
    '/oauth/interaction/:uid/login',
    requireCsrf,
    withDetails(async (req, res, details) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const session = await getHostSession(req, res);
      const result = await checkLogin(deps, body.email, body.password, clientAddress(req));
      if (!('personId' in result)) {
        if ('retryAfterSeconds' in result) res.set('Retry-After', String(result.retryAfterSeconds));
        const error = 'retryAfterSeconds' in result ? throttledMessage(result.retryAfterSeconds) : LOGIN_FAILED;
        return showLogin(
          res,
          details,
          await ensureCsrfToken(session),
          error,
          typeof body.email === 'string' ? body.email.slice(0, 320) : '',
          'retryAfterSeconds' in result ? 429 : 401,
        );
      }
      await startHostLogin(req, res, result.personId);
      await finishLogin(req, res, details, result.personId);
    }),
  );

  router.post(
    '/oauth/interaction/:uid/select',
    requireCsrf,
    withDetails(async (req, res, details) => {
      const session = await getHostSession(req, res);
      const person = await hostSessionPerson(req, res);
      if (!person || person.status !== 'active' || details.prompt.name !== 'select_account')
        return showLogin(res, details, await ensureCsrfToken(session));
      await finishLogin(req, res, details, person.id);
    }),
  );

  router.post(
    '/oauth/interaction/:uid/consent',
    requireCsrf,
    withDetails(async (req, res, details) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (details.prompt.name !== 'consent' || !details.session?.accountId) {
        return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
      }
      if (body.decision !== 'allow') {
        // @see RFC 6749 §4.1.2.1: the resource owner denied the request.
        await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'The user denied the request' },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const { missingOIDCScope, missingOIDCClaims } = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
      };
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ??
          new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) }))
        : new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
      if (missingOIDCScope?.length) grant.addOIDCScope(missingOIDCScope.join(' '));
      if (missingOIDCClaims?.length) grant.addOIDCClaims(missingOIDCClaims);
      // Saving keeps an existing grant's expiry; the code exchange that follows extends it (response-shapes.ts).
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }),
  );

  // The refusal page's button: the client learns of the refusal. @see RFC 6749 §4.1.2.1
  router.post(
    '/oauth/interaction/:uid/refused',
    requireCsrf,
    withDetails(async (req, res, details) => {
      if (details.prompt.name !== CONNECT_ACCESS_PROMPT) {
        return sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
      }
      const { access_mode: mode } = details.prompt.details as ConnectAccessDetails;
      const result = { error: 'access_denied', error_description: refusalDescription(mode) };
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }),
  );

  return router;
}
