/**
 * The account page's add-ons: each add-on the person has authorized (past `uninitialized`, its installation still
 * seen by their organization — add-on, environment, state, authorized, updated), each with a Revoke button, and the
 * revoke route. Revoking here is the JSON route's revocation (host/addons `revokeAuthorization`): the row and its
 * tokens deleted, `addon.authorization.revoked` recorded for the integrator, the host grant revoked.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { hostPersonOf } from '../auth/session.ts';
import {
  findInstallation,
  revokeAuthorization,
  type AuthorizationState,
  type PersonAuthorization,
  type RevokeDeps,
} from '../addons/index.ts';
import { Banner, CsrfField, shownTime, Table } from '../pages/render.tsx';

/** A time as the list shows it: UTC, to the minute. */

/** Each state as the person reads it. */
const STATE_LABELS: Record<Exclude<AuthorizationState, 'uninitialized'>, string> = {
  service_authorized: 'Authorizing',
  integrator_pending: 'Authorizing',
  ready: 'Authorized',
  reauthorization_required: 'Needs authorizing again',
};

export function AddonAuthorizationsSection(props: {
  authorizations: readonly PersonAuthorization[];
  csrfToken: string;
  /** An authorization was just revoked (a banner in the section). */
  revoked?: boolean | undefined;
  /** A refused revocation (a banner in the section). */
  error?: string | undefined;
}): VNode {
  return (
    <section class="ak-card" aria-labelledby="addon-authorizations">
      <h2 id="addon-authorizations">Add-ons you have authorized</h2>
      {props.revoked ? (
        <Banner tone="success" id="addon-revoked">
          <p>The add-on's authorization was revoked. It can no longer act for you until you authorize it again.</p>
        </Banner>
      ) : null}
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      <p>Add-ons that act for you in this host and at their own service. Revoke one to stop it at once.</p>
      {props.authorizations.length ? (
        <Table label="Add-ons you have authorized">
          <thead>
            <tr>
              <th scope="col">Add-on</th>
              <th scope="col">Environment</th>
              <th scope="col">State</th>
              <th scope="col">Authorized</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="ak-visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.authorizations.map((a) => (
              <tr key={a.installationId} data-addon-installation-id={a.installationId}>
                <td>{a.name}</td>
                <td>{a.environment}</td>
                <td>{STATE_LABELS[a.state]}</td>
                <td>{a.authorizedAt ? shownTime(a.authorizedAt) : 'not yet'}</td>
                <td>{shownTime(a.updatedAt)}</td>
                <td class="ak-cell-actions">
                  <form method="post" action={`/developer/account/addons/${a.installationId}/revoke`}>
                    <CsrfField token={props.csrfToken} />
                    <button type="submit" class="ak-button--danger ak-button--small">
                      Revoke
                      <span class="ak-visually-hidden">
                        {' '}
                        {a.name} ({a.environment})
                      </span>
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p class="ak-empty">You have not authorized any add-on.</p>
      )}
    </section>
  );
}

/** Shows the account page with a status and, for a refusal, a problem (account-page.tsx's `show`). */
export type ShowAccountAddons = (
  req: Request,
  res: Response,
  status: number,
  extra: { addonError?: string },
) => unknown;

/**
 * `POST /developer/account/addons/:installation/revoke` (behind requireHostLogin): revokes the person's own
 * authorization and returns to the account page with a confirmation; an installation their organization does not
 * see, or one they have not authorized (another person's authorization included), is the account page with 404.
 */
export function addonAuthorizationRoutes(deps: { revoking: RevokeDeps; show: ShowAccountAddons }): Router {
  const router = Router();
  router.post('/account/addons/:id/revoke', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    const installation = await findInstallation(deps.revoking.db, String(req.params.id ?? ''), person.organization_id);
    if (installation && (await revokeAuthorization(deps.revoking, installation, person))) {
      res.redirect(303, '/developer/account?addon_revoked=1#addon-authorizations');
      return;
    }
    await deps.show(req, res, 404, { addonError: 'You have not authorized that add-on.' });
  });
  return router;
}
