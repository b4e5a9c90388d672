/** The interaction's login result: the person logged in, back to the provider (which asks for consent next, if it must). */
import type { Request, Response } from 'express';
import { DatabaseAdapter } from '../provider-records/index.ts';
import type { Details, InteractionDeps } from './details.ts';

/** Finishes the login step as `personId`, ending the provider session of someone else who was logged in. */
export async function finishLogin(
  deps: InteractionDeps,
  req: Request,
  res: Response,
  details: Details,
  personId: string,
): Promise<void> {
  const { provider, db } = deps;
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
}
