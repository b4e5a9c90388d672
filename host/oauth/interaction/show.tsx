/**
 * `GET /oauth/interaction/{uid}`: the page the provider's prompt asks for — the account chooser, the login
 * form (skipped when the host login satisfies a plain login prompt), the consent page, or the access_mode
 * refusal.
 */
import type { Request, RequestHandler, Response } from 'express';
import { loadPerson, type PersonRecord } from '../../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostSessionPerson } from '../../auth/session.ts';
import { sendMessagePage, sendPage, viewerOf } from '../../pages/render.tsx';
import { CONNECT_ACCESS_PROMPT, type ConnectAccessDetails } from '../access-prompt.ts';
import { AccessRefusedPage } from '../access-refused-page.tsx';
import { HOST_SESSION_REASON } from '../provider.ts';
import {
  applicationName,
  pageOptions,
  sendExpired,
  withDetails,
  type Details,
  type InteractionDeps,
} from './details.ts';
import { finishLogin } from './finish-login.ts';
import { AccountChooser, ConsentPage } from './pages.tsx';
import { showLogin } from './show-login.tsx';

/** The page of the interaction's prompt. */
export function showInteraction(deps: InteractionDeps): RequestHandler {
  return withDetails(deps.provider, async (req, res, details) => {
    const session = await getHostSession(req, res);
    const csrfToken = await ensureCsrfToken(session);
    const hostPerson = await hostSessionPerson(req, res);
    const loggedIn = hostPerson?.status === 'active' ? hostPerson : undefined;
    switch (details.prompt.name) {
      case 'select_account':
        return chooseAccount(deps, res, details, csrfToken, loggedIn);
      case 'login':
        return logIn(deps, req, res, details, csrfToken, loggedIn);
      case 'consent':
        return askConsent(deps, res, details, csrfToken);
      case CONNECT_ACCESS_PROMPT:
        return refuseAccess(deps, res, details, csrfToken);
      default:
        return sendMessagePage(res, 400, 'Unsupported request', 'This authorization request cannot be completed here.');
    }
  });
}

/** `select_account`: continue as the person logged in to the host, or log in (the login form when no one is). */
async function chooseAccount(
  deps: InteractionDeps,
  res: Response,
  details: Details,
  csrfToken: string,
  loggedIn: PersonRecord | undefined,
): Promise<void> {
  if (!loggedIn) return showLogin(deps, res, details, csrfToken);
  sendPage(
    res,
    200,
    <AccountChooser
      uid={details.uid}
      csrfToken={csrfToken}
      applicationName={await applicationName(deps.provider, details)}
      person={loggedIn}
    />,
    await pageOptions(deps.provider, details),
  );
}

/** `login`: single sign-on from the host login, unless the client asked for a fresh login (or max_age etc.). */
async function logIn(
  deps: InteractionDeps,
  req: Request,
  res: Response,
  details: Details,
  csrfToken: string,
  loggedIn: PersonRecord | undefined,
): Promise<void> {
  if (loggedIn && details.prompt.reasons.every((r) => r === 'no_session' || r === HOST_SESSION_REASON))
    return finishLogin(deps, req, res, details, loggedIn.id);
  return showLogin(deps, res, details, csrfToken);
}

/** The person of the provider session, whom consent and refusal pages are for. */
async function sessionPerson(deps: InteractionDeps, details: Details): Promise<PersonRecord | undefined> {
  return details.session?.accountId ? await loadPerson(deps.db, details.session.accountId) : undefined;
}

/** `consent`: what each scope asked for allows. */
async function askConsent(deps: InteractionDeps, res: Response, details: Details, csrfToken: string): Promise<void> {
  const person = await sessionPerson(deps, details);
  if (!person) return sendExpired(res);
  const scopes = String((details.params.scope as string | undefined) ?? '')
    .split(' ')
    .filter(Boolean);
  sendPage(
    res,
    200,
    <ConsentPage
      action={`/oauth/interaction/${details.uid}/consent`}
      csrfToken={csrfToken}
      applicationName={await applicationName(deps.provider, details)}
      person={person}
      scopes={scopes}
    />,
    await pageOptions(deps.provider, details),
  );
}

/** `connect_access`: 403, the organization's access_mode refuses this person the application. */
async function refuseAccess(deps: InteractionDeps, res: Response, details: Details, csrfToken: string): Promise<void> {
  const person = await sessionPerson(deps, details);
  if (!person) return sendExpired(res);
  const { access_mode: mode } = details.prompt.details as ConnectAccessDetails;
  sendPage(
    res,
    403,
    <AccessRefusedPage
      uid={details.uid}
      csrfToken={csrfToken}
      viewer={viewerOf(person)}
      refusal={{
        mode,
        organizationName: person.organization_name,
        applicationName: await applicationName(deps.provider, details),
      }}
    />,
    // Its button ends at the client's redirect_uri with access_denied: the form may go there.
    await pageOptions(deps.provider, details),
  );
}
