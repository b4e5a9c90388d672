/** The login form of an interaction (`prompt=login` asks "Log in again"), with an error and the e-mail typed when a try failed. */
import type { Response } from 'express';
import { LoginForm } from '../../pages/login.tsx';
import { sendPage } from '../../pages/render.tsx';
import { applicationName, pageOptions, type Details, type InteractionDeps } from './details.ts';

/** Answers the login form of the interaction (401 with an error, unless another status is given). */
export async function showLogin(
  deps: InteractionDeps,
  res: Response,
  details: Details,
  csrfToken: string,
  error?: string,
  email?: string,
  status = error ? 401 : 200,
): Promise<void> {
  const forced = details.prompt.reasons.includes('login_prompt');
  const name = await applicationName(deps.provider, details);
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
    await pageOptions(deps.provider, details),
  );
}
