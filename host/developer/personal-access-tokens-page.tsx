/** Developer account: the logged-in person's personal access tokens (list, create with the secret shown once, delete). */
import { Router } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import {
  createPersonalAccessToken,
  deletePersonalAccessToken,
  listPersonalAccessTokens as listTokens,
  type PersonalAccessTokenRow,
} from '../auth/personal-access-tokens.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import type { PersonRecord } from '../auth/person.ts';
import { Banner, CsrfField, Field, sendPage, Table } from '../pages/render.tsx';
import { DeveloperLayout } from './layout.tsx';

type TokenRow = PersonalAccessTokenRow;

/** The token list, the create form, and (right after creation only) the new secret. */
export function TokensPage(props: {
  person: PersonRecord;
  tokens: TokenRow[];
  csrfToken: string;
  created?: { name: string; client_id: string; secret: string };
  /** A problem of the page (a banner). */
  error?: string;
  /** A problem of the new token's name (beside the field). */
  nameError?: string;
}): VNode {
  return (
    <DeveloperLayout
      title="Personal access tokens"
      lede="For scripts on your own machine or server: send the application ID and secret by HTTP Basic."
      person={props.person}
      csrfToken={props.csrfToken}
      tab="tokens"
    >
      {props.created ? <CreatedToken created={props.created} /> : null}
      {props.error ? (
        <Banner tone="critical">
          <p>{props.error}</p>
        </Banner>
      ) : null}
      {props.tokens.length ? (
        <TokensTable tokens={props.tokens} csrfToken={props.csrfToken} />
      ) : (
        <p class="ak-empty">You have no personal access tokens yet.</p>
      )}
      <NewTokenForm csrfToken={props.csrfToken} nameError={props.nameError} />
    </DeveloperLayout>
  );
}

/** The new token's client ID and secret, shown once. */
function CreatedToken({ created }: { created: { name: string; client_id: string; secret: string } }): VNode {
  return (
    <section id="created" aria-labelledby="created-title" class="ak-banner ak-banner--success">
      <h2 id="created-title" class="ak-banner-title">
        Token “{created.name}” created
      </h2>
      <p>Copy the secret now: it is shown only once.</p>
      <dl class="ak-facts">
        <dt>Client ID</dt>
        <dd>
          <span class="ak-secret" data-field="client_id">
            {created.client_id}
          </span>
        </dd>
        <dt>Secret</dt>
        <dd>
          <span class="ak-secret" data-field="secret">
            {created.secret}
          </span>
        </dd>
      </dl>
    </section>
  );
}

/** The person's tokens, each with its Delete button. */
function TokensTable({ tokens, csrfToken }: { tokens: TokenRow[]; csrfToken: string }): VNode {
  return (
    <Table label="Your personal access tokens">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Client ID</th>
          <th scope="col">Created</th>
          <th scope="col">
            <span class="ak-visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((t) => (
          <tr key={t.id} data-token-id={t.id}>
            <td>
              {t.name}
              {t.disabled_at ? (
                <>
                  {' '}
                  <span class="ak-badge">disabled</span>
                </>
              ) : null}
            </td>
            <td class="ak-mono">{t.client_id}</td>
            <td>{t.created_at.toISOString().slice(0, 10)}</td>
            <td class="ak-cell-actions">
              <form method="post" action={`/developer/personal-access-tokens/${t.id}/delete`}>
                <CsrfField token={csrfToken} />
                <button type="submit" class="ak-button--danger ak-button--small">
                  Delete<span class="ak-visually-hidden"> {t.name}</span>
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The form creating a token, with the name's problem beside its field. */
function NewTokenForm({ csrfToken, nameError }: { csrfToken: string; nameError: string | undefined }): VNode {
  return (
    <section class="ak-card" aria-labelledby="new-token">
      <h2 id="new-token">New token</h2>
      <form method="post" action="/developer/personal-access-tokens" class="ak-inline-form">
        <CsrfField token={csrfToken} />
        <Field id="name" label="Name" hint="What the token is for, e.g. the script that uses it." error={nameError}>
          {(aria) => <input {...aria} type="text" name="name" required maxLength={255} value="" />}
        </Field>
        <button type="submit" class="ak-button--primary">
          Create token
        </button>
      </form>
    </section>
  );
}

/** Routes under `/developer/personal-access-tokens` (behind requireHostLogin). */
export function personalAccessTokensPages(deps: { db: Queryable }): Router {
  const router = Router();
  router.get('/personal-access-tokens', async (req, res) => {
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const person = hostPersonOf(req);
    sendPage(
      res,
      200,
      <TokensPage person={person} tokens={await listTokens(deps.db, person.id)} csrfToken={csrfToken} />,
    );
  });
  router.post('/personal-access-tokens', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const field = (req.body as Record<string, unknown> | undefined)?.name;
    const name = typeof field === 'string' ? field.trim() : '';
    if (!name || name.length > 255) {
      const tokens = await listTokens(deps.db, person.id);
      const nameError = 'Name is required (at most 255 characters)';
      sendPage(res, 422, <TokensPage person={person} tokens={tokens} csrfToken={csrfToken} nameError={nameError} />);
      return;
    }
    const created = await createPersonalAccessToken(deps.db, person.id, name);
    const tokens = await listTokens(deps.db, person.id);
    sendPage(res, 201, <TokensPage person={person} tokens={tokens} csrfToken={csrfToken} created={created} />);
  });
  router.post('/personal-access-tokens/:id/delete', requireCsrf, async (req, res) => {
    const id = String(req.params.id ?? '');
    // Only the owner's own tokens; anything else is "not found".
    if (!(await deletePersonalAccessToken(deps.db, hostPersonOf(req).id, id))) {
      const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
      const person = hostPersonOf(req);
      const tokens = await listTokens(deps.db, person.id);
      sendPage(
        res,
        404,
        <TokensPage person={person} tokens={tokens} csrfToken={csrfToken} error="That token does not exist." />,
      );
      return;
    }
    res.redirect(303, '/developer/personal-access-tokens');
  });
  return router;
}
