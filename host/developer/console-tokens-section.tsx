/**
 * The account page's console tokens: the live tokens /docs issued to the person for its try-it console (API,
 * created, expires), each with a Revoke button, and the revoke route. Expired tokens are deleted when the list is
 * read (and hourly by the OAuth housekeeping), so they are never shown.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { revokeConsoleToken, type ConsoleTokenRow } from '../auth/console-tokens.ts';
import { requireCsrf } from '../auth/csrf.ts';
import { hostPersonOf } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { Banner, CsrfField, shownTime, Table } from '../pages/render.tsx';

/** A time as the list shows it: UTC, to the minute. */

export function ConsoleTokensSection(props: {
  tokens: readonly ConsoleTokenRow[];
  csrfToken: string;
  /** A refused revocation (a banner in the section). */
  error?: string | undefined;
}): VNode {
  return (
    <section class="ak-card" aria-labelledby="console-tokens">
      <h2 id="console-tokens">Console tokens</h2>
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      <p>
        Short-lived tokens the <a href="/docs">API reference</a> issued to you for its try-it console, each for one API.
        Revoke one to stop it at once.
      </p>
      {props.tokens.length ? (
        <Table label="Your console tokens">
          <thead>
            <tr>
              <th scope="col">API</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="ak-visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.tokens.map((t) => (
              <tr key={t.id} data-console-token-id={t.id}>
                <td class="ak-mono">{t.api_prefix}</td>
                <td>{shownTime(t.created_at)}</td>
                <td>{shownTime(t.expires_at)}</td>
                <td class="ak-cell-actions">
                  <form method="post" action={`/developer/account/console-tokens/${t.id}/revoke`}>
                    <CsrfField token={props.csrfToken} />
                    <button type="submit" class="ak-button--danger ak-button--small">
                      Revoke<span class="ak-visually-hidden"> the console token for {t.api_prefix}</span>
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p class="ak-empty">You have no live console tokens.</p>
      )}
    </section>
  );
}

/** Shows the account page with a status and, for a refusal, a problem (account-page.tsx's `show`). */
export type ShowAccount = (req: Request, res: Response, status: number, extra: { consoleError?: string }) => unknown;

/**
 * `POST /developer/account/console-tokens/:id/revoke` (behind requireHostLogin): deletes one of the person's own
 * tokens and returns to the account page; any other id (another person's included) is the account page with 404.
 */
export function consoleTokenRoutes(deps: { db: Queryable; show: ShowAccount }): Router {
  const router = Router();
  router.post('/account/console-tokens/:id/revoke', requireCsrf, async (req, res) => {
    if (await revokeConsoleToken(deps.db, hostPersonOf(req).id, String(req.params.id ?? ''))) {
      res.redirect(303, '/developer/account#console-tokens');
      return;
    }
    await deps.show(req, res, 404, { consoleError: 'That console token does not exist.' });
  });
  return router;
}
