/** The developer-account pages at `/developer`, for a logged-in person; every POST is CSRF-checked. */
import { Router } from 'express';
import { ensureCsrfToken, getHostSession, hostPersonOf, requireHostLogin } from '../auth/session.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { sendPage } from '../pages/render.tsx';
import { connectedApplicationsPages } from './connected-applications-page.tsx';
import { DeveloperLayout } from './layout.tsx';
import { oauthApplicationsPages } from './oauth-applications-page.tsx';
import { personalAccessTokensPages } from './personal-access-tokens-page.tsx';

/** Mount at `/developer`. */
export function developerRouter(deps: { db: Queryable; box: SecretBox }): Router {
  const router = Router();
  router.use(requireHostLogin);
  router.get('/', async (req, res) => {
    const person = hostPersonOf(req);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    sendPage(
      res,
      200,
      <DeveloperLayout title="Developer account" csrfToken={csrfToken}>
        <p>
          Logged in as {person.first_name} {person.last_name} ({person.email}), {person.organization_name}.
        </p>
        <ul>
          <li>
            <a href="/developer/personal-access-tokens">Personal access tokens</a> — for scripts on your own machine or server.
          </li>
          <li>
            <a href="/developer/oauth-applications">OAuth applications</a> — for integrations used by many people.
          </li>
          <li>
            <a href="/developer/connected-applications">Connected applications</a> — who in the organization may connect each
            application (organization administrators).
          </li>
        </ul>
      </DeveloperLayout>,
    );
  });
  router.use(personalAccessTokensPages(deps));
  router.use(oauthApplicationsPages(deps));
  router.use(connectedApplicationsPages(deps));
  return router;
}
