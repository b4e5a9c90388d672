/** `POST /oauth/interaction/{uid}/consent` and `/refused`: the person's decision, or the refusal, told to the provider. */
import type { RequestHandler } from 'express';
import { CONNECT_ACCESS_PROMPT, type ConnectAccessDetails } from '../access-prompt.ts';
import { refusalDescription } from '../application-access.ts';
import { sendExpired, withDetails, type InteractionDeps } from './details.ts';

/** Allow grants the scopes asked for (on the grant the provider session already has, if any); Deny is access_denied. */
export function decideConsent(deps: InteractionDeps): RequestHandler {
  const { provider } = deps;
  return withDetails(provider, async (req, res, details) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (details.prompt.name !== 'consent' || !details.session?.accountId) return sendExpired(res);
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
  });
}

/** The refusal page's button: the client learns of the refusal. @see RFC 6749 §4.1.2.1 */
export function endRefused(deps: InteractionDeps): RequestHandler {
  const { provider } = deps;
  return withDetails(provider, async (req, res, details) => {
    if (details.prompt.name !== CONNECT_ACCESS_PROMPT) return sendExpired(res);
    const { access_mode: mode } = details.prompt.details as ConnectAccessDetails;
    const result = { error: 'access_denied', error_description: refusalDescription(mode) };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  });
}
