/**
 * ConnectedApplication.access_mode at the authorization step: an interaction prompt placed after login
 * and before consent, so it is checked on every authorization and every resume (also when an earlier
 * consent lets the provider skip the consent page), with the person's permissions of that request. A
 * refused person gets the `connect_access` interaction page (interaction/show.tsx), which sends
 * `access_denied` back to the client; with `prompt=none` the provider answers `access_denied` at once.
 * @see RFC 6749 §4.1.2.1
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { Queryable } from '../db/database.ts';
import { findAccessRefusal, type AccessRefusal } from './application-access.ts';

/** Name of the prompt, as `interactionDetails().prompt.name` reports it. */
export const CONNECT_ACCESS_PROMPT = 'connect_access';

/** What the interaction page learns about the refusal (`prompt.details`). */
export type ConnectAccessDetails = { access_mode: AccessRefusal['mode'] };

/** The prompt; add it to the policy just before `consent`. */
export function connectAccessPrompt(db: Queryable): interactionPolicy.Prompt {
  const refusals = new WeakMap<KoaContextWithOIDC, AccessRefusal>();
  return new interactionPolicy.Prompt(
    { name: CONNECT_ACCESS_PROMPT, requestable: false },
    new interactionPolicy.Check(
      'access_mode',
      'Your organization does not allow you to connect this application',
      'access_denied',
      async (ctx) => {
        // Login comes first in the policy: without an account this prompt is not reached.
        const personId = ctx.oidc.session?.accountId;
        const clientId = ctx.oidc.client?.clientId;
        if (!personId || !clientId) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        const refusal = await findAccessRefusal(db, { personId, clientId });
        if (!refusal) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        refusals.set(ctx, refusal);
        return interactionPolicy.Check.REQUEST_PROMPT;
      },
      (ctx): ConnectAccessDetails => ({ access_mode: refusals.get(ctx)!.mode }),
    ),
  );
}
