/**
 * What every interaction route starts from: oidc-provider's details of the interaction the browser's cookie
 * names (an expired or foreign one answers the "sign-in has expired" page), and the client it is for.
 */
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Queryable } from '../../db/database.ts';
import type { SignInThrottle } from '../../limits/sign-in-throttle.ts';
import { sendMessagePage } from '../../pages/render.tsx';
import { formTargets } from '../form-targets.ts';

/** What the interaction routes need from the host. */
export interface InteractionDeps {
  provider: Provider;
  db: Queryable;
  throttle: SignInThrottle;
}

/** oidc-provider's details of one interaction. */
export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** 400: the interaction is gone or is not the one the path names; the person starts again at the application. */
export function sendExpired(res: Response): void {
  sendMessagePage(res, 400, 'This sign-in has expired', 'Go back to the application and start again.');
}

/** A handler given the details of the path's interaction (oidc-provider's cookie ties it to the browser that started it). */
export function withDetails(
  provider: Provider,
  handler: (req: Request, res: Response, details: Details) => Promise<void>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    let details: Details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (error) {
      if (error instanceof errors.SessionNotFound || error instanceof errors.OIDCProviderError) return sendExpired(res);
      throw error;
    }
    if (details.uid !== req.params.uid) return sendExpired(res);
    await handler(req, res, details);
  };
}

/** The name of the application asking, as registered. */
export async function applicationName(provider: Provider, details: Details): Promise<string> {
  const client = await provider.Client.find(String(details.params.client_id));
  return client?.clientName ?? 'An application';
}

/** The page options of an interaction page: its forms may lead on to the client's redirect URIs. */
export async function pageOptions(provider: Provider, details: Details): Promise<{ formAction: string[] }> {
  const client = await provider.Client.find(String(details.params.client_id));
  return { formAction: formTargets(client?.redirectUris ?? [], client?.applicationType === 'native') };
}
