/** Developer account: the logged-in person's personal access tokens (list, create with the secret shown once, delete). */
import { Router } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { createPersonalAccessToken } from '../auth/personal-access-tokens.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { CsrfField, sendPage } from '../pages/render.tsx';
import { DeveloperLayout } from './layout.tsx';

interface TokenRow {
  id: string;
  name: string;
  client_id: string;
  created_at: Date;
  disabled_at: Date | null;
}

/** The token list, the create form, and (right after creation only) the new secret. */
export function TokensPage(props: { tokens: TokenRow[]; csrfToken: string; created?: { name: string; client_id: string; secret: string }; error?: string }): VNode {
  return (
    <DeveloperLayout title="Personal access tokens" csrfToken={props.csrfToken}>
      {props.created ? (
        <section id="created">
          <h2>Token “{props.created.name}” created</h2>
          <p>Copy the secret now: it is shown only once.</p>
          <p>
            Application ID: <span class="secret" data-field="client_id">{props.created.client_id}</span>
          </p>
          <p>
            Secret: <span class="secret" data-field="secret">{props.created.secret}</span>
          </p>
        </section>
      ) : null}
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Application ID</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.tokens.map((t) => (
            <tr key={t.id} data-token-id={t.id}>
              <td>
                {t.name}
                {t.disabled_at ? ' (disabled)' : ''}
              </td>
              <td>{t.client_id}</td>
              <td>{t.created_at.toISOString().slice(0, 10)}</td>
              <td>
                <form method="post" action={`/developer/personal-access-tokens/${t.id}/delete`}>
                  <CsrfField token={props.csrfToken} />
                  <button type="submit">Delete</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>New token</h2>
      {props.error ? <p class="error">{props.error}</p> : null}
      <form method="post" action="/developer/personal-access-tokens">
        <CsrfField token={props.csrfToken} />
        <label for="name">Name</label>
        <input id="name" type="text" name="name" required maxLength={255} value="" />
        <button type="submit">Create token</button>
      </form>
    </DeveloperLayout>
  );
}

async function listTokens(db: Queryable, personId: string): Promise<TokenRow[]> {
  const { rows } = await db.query<TokenRow>(
    'SELECT id::text, name, client_id, created_at, disabled_at FROM personal_access_tokens WHERE person_id = $1 ORDER BY created_at DESC, id DESC',
    [personId],
  );
  return rows;
}

/** Routes under `/developer/personal-access-tokens` (behind requireHostLogin). */
export function personalAccessTokensPages(deps: { db: Queryable }): Router {
  const router = Router();
  router.get('/personal-access-tokens', async (req, res) => {
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    sendPage(res, 200, <TokensPage tokens={await listTokens(deps.db, hostPersonOf(req).id)} csrfToken={csrfToken} />);
  });
  router.post('/personal-access-tokens', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const name = typeof req.body?.name === 'string' ? req.body.name.trim() : '';
    if (!name || name.length > 255) {
      sendPage(res, 422, <TokensPage tokens={await listTokens(deps.db, person.id)} csrfToken={csrfToken} error="Name is required (at most 255 characters)" />);
      return;
    }
    const created = await createPersonalAccessToken(deps.db, person.id, name);
    sendPage(res, 201, <TokensPage tokens={await listTokens(deps.db, person.id)} csrfToken={csrfToken} created={created} />);
  });
  router.post('/personal-access-tokens/:id/delete', requireCsrf, async (req, res) => {
    const id = String(req.params.id ?? '');
    // Only the owner's own tokens; anything else is "not found".
    const { rowCount } = /^\d{1,18}$/.test(id) ? await deps.db.query('DELETE FROM personal_access_tokens WHERE id = $1 AND person_id = $2', [id, hostPersonOf(req).id]) : { rowCount: 0 };
    if (rowCount === 0) {
      const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
      sendPage(res, 404, <TokensPage tokens={await listTokens(deps.db, hostPersonOf(req).id)} csrfToken={csrfToken} error="That token does not exist." />);
      return;
    }
    res.redirect(303, '/developer/personal-access-tokens');
  });
  return router;
}
