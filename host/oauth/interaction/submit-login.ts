/** `POST /oauth/interaction/{uid}/login` and `/select`: the person logs in (to the host as well), or continues as the host's. */
import type { RequestHandler } from 'express';
import { ensureCsrfToken, getHostSession, hostSessionPerson, startHostLogin } from '../../auth/session.ts';
import { clientAddress } from '../../http/client-address.ts';
import { checkLogin, LOGIN_FAILED, throttledMessage } from '../../pages/login.tsx';
import { withDetails, type InteractionDeps } from './details.ts';
import { finishLogin } from './finish-login.ts';
import { showLogin } from './show-login.tsx';

/** The login form posted: the password checked (throttled as `/login` is), the host login started, the step finished. */
export function submitLogin(deps: InteractionDeps): RequestHandler {
  return withDetails(deps.provider, async (req, res, details) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const session = await getHostSession(req, res);
    const result = await checkLogin(deps, body.email, body.password, clientAddress(req));
    if (!('personId' in result)) {
      if ('retryAfterSeconds' in result) res.set('Retry-After', String(result.retryAfterSeconds));
      const error = 'retryAfterSeconds' in result ? throttledMessage(result.retryAfterSeconds) : LOGIN_FAILED;
      return showLogin(
        deps,
        res,
        details,
        await ensureCsrfToken(session),
        error,
        typeof body.email === 'string' ? body.email.slice(0, 320) : '',
        'retryAfterSeconds' in result ? 429 : 401,
      );
    }
    await startHostLogin(req, res, result.personId);
    await finishLogin(deps, req, res, details, result.personId);
  });
}

/** The account chooser's "Continue as": the host's person, still active, for a `select_account` prompt. */
export function selectAccount(deps: InteractionDeps): RequestHandler {
  return withDetails(deps.provider, async (req, res, details) => {
    const session = await getHostSession(req, res);
    const person = await hostSessionPerson(req, res);
    if (!person || person.status !== 'active' || details.prompt.name !== 'select_account')
      return showLogin(deps, res, details, await ensureCsrfToken(session));
    await finishLogin(deps, req, res, details, person.id);
  });
}
