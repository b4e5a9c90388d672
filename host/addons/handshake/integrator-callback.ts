/**
 * Step 5 (`/authorizations/{oauth_application_id}?code&state`, where the integrator sends the browser after
 * its prompt): the state checked again, a Deny reported as declined on the integrator side, and the leg's
 * PKCE verifier read back — it must be the one this browser holds. Hands over to complete.ts.
 */
import type { RequestHandler, Response } from 'express';
import type { HandshakeCookie } from './cookie.ts';
import type { HandshakeDeps } from './deps.ts';
import { checkReturn } from './legs.ts';
import type { Installation } from '../registry/index.ts';
import type { AuthorizationState } from '../authorizations/index.ts';
import { StepFailure } from './step-failure.ts';

/** What step 5 hands to step 6. */
export interface IntegratorCallback {
  cookie: HandshakeCookie;
  installation: Installation;
  recordId: string;
  /** The host person whose authorization it is. */
  personId: string;
  state: AuthorizationState;
  verifier: string;
}

/** The callback step 5 checked, for step 6. */
export function integratorCallbackOf(res: Response): IntegratorCallback {
  return res.locals.integratorCallback as IntegratorCallback;
}

/** `…/authorizations/{oauth_application_id}`: checks the integrator's redirect back. */
export function checkIntegratorCallback(deps: HandshakeDeps): RequestHandler {
  const { vault } = deps;
  return async (req, res, next) => {
    const { cookie, installation, recordId } = await checkReturn(deps, req, res, 'integrator');
    const record = (await vault.findById(recordId))!;
    const pending = record.state;
    if (typeof req.query.error === 'string') {
      throw new StepFailure(
        400,
        'integrator_denied',
        'Authorization declined',
        'Access to the add-on’s service was not granted, so the add-on cannot be used.',
        installation.id,
        pending,
        'integrator',
        true,
      );
    }
    const sealed = await vault.store.sealedVerifier(recordId);
    const verifier = sealed ? vault.open(recordId, 'handshake_code_verifier_encrypted', sealed) : undefined;
    if (!verifier || verifier !== cookie.codeVerifier) {
      throw new StepFailure(
        400,
        'state_mismatch',
        'The authorization cannot continue',
        'This authorization was replaced by a newer one.',
        installation.id,
        pending,
      );
    }
    res.locals.integratorCallback = {
      cookie,
      installation,
      recordId,
      personId: record.personId,
      state: pending,
      verifier,
    } satisfies IntegratorCallback;
    next();
  };
}
