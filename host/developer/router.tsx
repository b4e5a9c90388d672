/** The developer-account pages at `/developer`, for a logged-in person; every POST is CSRF-checked. */
import { Router } from 'express';
import type { RevokeDeps } from '../addons/index.ts';
import { displayName } from '../auth/person.ts';
import { isOrganizationAdministrator } from '../auth/permissions.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf, requireHostLogin } from '../auth/session.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import type { SignInThrottle } from '../limits/sign-in-throttle.ts';
import { sendPage } from '../pages/render.tsx';
import { accountPages } from './account-page.tsx';
import { connectedApplicationsPages } from './connected-applications-page.tsx';
import { DeveloperLayout } from './layout.tsx';
import { oauthApplicationsPages } from './oauth-applications-page.tsx';
import { personalAccessTokensPages } from './personal-access-tokens-page.tsx';
import { webhookEventPages } from './webhook-event-page.tsx';
import { webhookSubscriptionPages } from './webhook-subscription-page.tsx';
import { webhooksPages } from './webhooks-page.tsx';

/** Mount at `/developer`. */
export function developerRouter(deps: {
  db: Queryable;
  box: SecretBox;
  throttle: SignInThrottle;
  /** The clock console tokens expire by (tests set it). */
  now?: (() => Date) | undefined;
  /** Wakes this process's webhook delivery worker (a test event, a redelivery). */
  wakeWebhooks?: () => void;
  /** What the account page's Revoke of an add-on authorization needs (the add-on runtime's). */
  addonRevoking: RevokeDeps;
}): Router {
  const router = Router();
  router.use(requireHostLogin);
  router.get('/', async (req, res) => {
    const person = hostPersonOf(req);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const admin = isOrganizationAdministrator(person);
    sendPage(
      res,
      200,
      <DeveloperLayout
        title="Developer account"
        lede={`Logged in as ${displayName(person)} (${person.email}), ${person.organization_name}.`}
        person={person}
        csrfToken={csrfToken}
        tab="overview"
      >
        <div class="ak-grid">
          <a class="ak-tile" href="/developer/personal-access-tokens">
            <strong>Personal access tokens</strong>
            <span>For scripts on your own machine or server.</span>
          </a>
          <a class="ak-tile" href="/developer/oauth-applications">
            <strong>OAuth applications</strong>
            <span>For integrations used by many people.</span>
          </a>
          {admin ? (
            <a class="ak-tile" href="/developer/connected-applications">
              <strong>Connected applications</strong>
              <span>Who in the organization may connect each application.</span>
            </a>
          ) : null}
          <a class="ak-tile" href="/developer/webhooks">
            <strong>Webhooks</strong>
            <span>People changes delivered to your server, signed.</span>
          </a>
        </div>
        <p class="ak-subdued">
          The API reference is at <a href="/docs">/docs</a>.
        </p>
      </DeveloperLayout>,
    );
  });
  router.use(personalAccessTokensPages(deps));
  router.use(oauthApplicationsPages(deps));
  router.use(connectedApplicationsPages(deps));
  router.use(webhooksPages(deps));
  router.use(webhookSubscriptionPages(deps));
  router.use(webhookEventPages(deps));
  router.use(accountPages(deps));
  return router;
}
