/**
 * Developer account: the organization's OAuth applications. Everyone in the organization sees the
 * list; only organization administrators (site_administrator) create them, and all of them manage
 * (edit, add-on scopes, new secret, delete) every application of the organization.
 */
import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import { clientSecretAad, createOAuthApplication } from '../oauth/applications.ts';
import { CsrfField, sendMessagePage, sendPage } from '../pages/render.tsx';
import { readApplicationInput, type ApplicationInput, type ApplicationProblems } from './application-input.ts';
import { DeveloperLayout } from './layout.tsx';

interface ApplicationRow {
  id: string;
  name: string;
  description: string;
  url: string;
  client_id: string;
  public: boolean;
  redirect_uris: string[];
  add_on_scopes: string;
}

const COLUMNS = 'id::text, name, description, url, client_id, public, redirect_uris, add_on_scopes';

function Problem(props: { text: string | undefined }): VNode | null {
  return props.text ? <p class="error">{props.text}</p> : null;
}

/** The create/edit form; `creating` adds the client type choice (fixed afterwards). */
export function ApplicationForm(props: { action: string; csrfToken: string; values?: Partial<ApplicationInput>; problems?: ApplicationProblems; creating: boolean; submit: string }): VNode {
  const v = props.values ?? {};
  const p = props.problems ?? {};
  return (
    <form method="post" action={props.action}>
      <CsrfField token={props.csrfToken} />
      <label for="name">Name</label>
      <input id="name" type="text" name="name" required maxLength={255} value={v.name ?? ''} />
      <Problem text={p.name} />
      <label for="description">Description</label>
      <textarea id="description" name="description">{v.description ?? ''}</textarea>
      <Problem text={p.description} />
      <label for="url">URL</label>
      <input id="url" type="url" name="url" value={v.url ?? ''} />
      <Problem text={p.url} />
      <label for="redirect_uris">Redirect URIs (one per line)</label>
      <textarea id="redirect_uris" name="redirect_uris" required>
        {(v.redirectUris ?? []).join('\n')}
      </textarea>
      <Problem text={p.redirect_uris} />
      {props.creating ? (
        <fieldset>
          <legend>Client type</legend>
          <label>
            <input type="radio" name="client_type" value="confidential" checked={!v.public} /> Confidential (a server keeps the secret)
          </label>
          <label>
            <input type="radio" name="client_type" value="public" checked={!!v.public} /> Public (browser or mobile app; PKCE required, no secret)
          </label>
        </fieldset>
      ) : null}
      <label for="add_on_scopes">Add-on scopes (space-separated)</label>
      <input id="add_on_scopes" type="text" name="add_on_scopes" value={v.addOnScopes ?? ''} />
      <Problem text={p.add_on_scopes} />
      <button type="submit">{props.submit}</button>
    </form>
  );
}

function CreatedSecret(props: { clientId: string; secret?: string | undefined }): VNode {
  return (
    <section id="created">
      <p>
        Client ID: <span class="secret" data-field="client_id">{props.clientId}</span>
      </p>
      {props.secret ? (
        <p>
          Client secret (shown only once — copy it now): <span class="secret" data-field="client_secret">{props.secret}</span>
        </p>
      ) : (
        <p>Public client: no secret; use PKCE.</p>
      )}
    </section>
  );
}

function ListPage(props: { apps: ApplicationRow[]; person: PersonRecord; csrfToken: string; values?: Partial<ApplicationInput>; problems?: ApplicationProblems }): VNode {
  return (
    <DeveloperLayout title="OAuth applications" csrfToken={props.csrfToken}>
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Client ID</th>
            <th>Type</th>
          </tr>
        </thead>
        <tbody>
          {props.apps.map((a) => (
            <tr key={a.id} data-application-id={a.id}>
              <td>
                <a href={`/developer/oauth-applications/${a.id}`}>{a.name}</a>
              </td>
              <td>{a.client_id}</td>
              <td>{a.public ? 'public' : 'confidential'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.person.site_administrator ? (
        <>
          <h2>New OAuth application</h2>
          <ApplicationForm action="/developer/oauth-applications" csrfToken={props.csrfToken} creating submit="Create application" {...(props.values ? { values: props.values } : {})} {...(props.problems ? { problems: props.problems } : {})} />
        </>
      ) : (
        <p>Only organization administrators create and manage OAuth applications.</p>
      )}
    </DeveloperLayout>
  );
}

function DetailPage(props: { app: ApplicationRow; person: PersonRecord; csrfToken: string; created?: { secret?: string | undefined }; values?: Partial<ApplicationInput>; problems?: ApplicationProblems }): VNode {
  const { app } = props;
  const values: Partial<ApplicationInput> = props.values ?? { name: app.name, description: app.description, url: app.url, redirectUris: app.redirect_uris, addOnScopes: app.add_on_scopes };
  return (
    <DeveloperLayout title={app.name} csrfToken={props.csrfToken}>
      {props.created ? <CreatedSecret clientId={app.client_id} secret={props.created.secret} /> : null}
      <p>
        Application ID: {app.id} · Client ID: {app.client_id} · {app.public ? 'public' : 'confidential'}
      </p>
      {props.person.site_administrator ? (
        <>
          <p>
            <a href={`/developer/connected-applications/${app.id}`}>Who in {props.person.organization_name} may connect it</a>
          </p>
          <ApplicationForm action={`/developer/oauth-applications/${app.id}`} csrfToken={props.csrfToken} creating={false} submit="Save" values={values} {...(props.problems ? { problems: props.problems } : {})} />
          {app.public ? null : (
            <form method="post" action={`/developer/oauth-applications/${app.id}/secret`}>
              <CsrfField token={props.csrfToken} />
              <button type="submit">New client secret</button>
            </form>
          )}
          <form method="post" action={`/developer/oauth-applications/${app.id}/delete`}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Delete application</button>
          </form>
        </>
      ) : (
        <p>Redirect URIs: {app.redirect_uris.join(', ')}</p>
      )}
    </DeveloperLayout>
  );
}

/** Routes under `/developer/oauth-applications` (behind requireHostLogin). */
export function oauthApplicationsPages(deps: { db: Queryable; box: SecretBox }): Router {
  const { db, box } = deps;
  const router = Router();

  const list = async (orgId: string) => (await db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE organization_id = $1 ORDER BY name, id`, [orgId])).rows;
  // Another organization's application is "not found", never "forbidden".
  const load = async (req: Request) => {
    const id = String(req.params.id ?? '');
    if (!/^\d{1,18}$/.test(id)) return undefined;
    return (await db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE id = $1 AND organization_id = $2`, [id, hostPersonOf(req).organization_id])).rows[0];
  };
  const csrf = async (req: Request, res: Response) => ensureCsrfToken(await getHostSession(req, res));
  const notFound = (res: Response) => sendMessagePage(res, 404, 'Not found', 'That OAuth application does not exist in your organization.');
  const adminsOnly = (res: Response) => sendMessagePage(res, 403, 'Administrators only', 'Only organization administrators create and manage OAuth applications.');

  router.get('/oauth-applications', async (req, res) => {
    const person = hostPersonOf(req);
    sendPage(res, 200, <ListPage apps={await list(person.organization_id)} person={person} csrfToken={await csrf(req, res)} />);
  });

  router.post('/oauth-applications', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    const { input, problems } = readApplicationInput((req.body ?? {}) as Record<string, unknown>);
    if (Object.keys(problems).length) {
      return sendPage(res, 422, <ListPage apps={await list(person.organization_id)} person={person} csrfToken={await csrf(req, res)} values={input} problems={problems} />);
    }
    const created = await createOAuthApplication(db, box, {
      organizationId: person.organization_id,
      name: input.name,
      description: input.description,
      url: input.url,
      redirectUris: input.redirectUris,
      public: input.public,
      addOnScopes: input.addOnScopes,
      createdById: person.id,
    });
    const app = (await db.query<ApplicationRow>(`SELECT ${COLUMNS} FROM oauth_applications WHERE id = $1`, [created.id])).rows[0]!;
    sendPage(res, 201, <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} created={{ secret: created.client_secret }} />);
  });

  router.get('/oauth-applications/:id', async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    sendPage(res, 200, <DetailPage app={app} person={hostPersonOf(req)} csrfToken={await csrf(req, res)} />);
  });

  router.post('/oauth-applications/:id', requireCsrf, async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    const { input, problems } = readApplicationInput({ ...(req.body ?? {}), client_type: app.public ? 'public' : 'confidential' });
    if (Object.keys(problems).length) {
      return sendPage(res, 422, <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} values={input} problems={problems} />);
    }
    await db.query(
      'UPDATE oauth_applications SET name = $3, description = $4, url = $5, redirect_uris = $6, add_on_scopes = $7, updated_at = now() WHERE id = $1 AND organization_id = $2',
      [app.id, person.organization_id, input.name, input.description, input.url, input.redirectUris, input.addOnScopes],
    );
    res.redirect(303, `/developer/oauth-applications/${app.id}`);
  });

  router.post('/oauth-applications/:id/secret', requireCsrf, async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    if (app.public) return sendMessagePage(res, 400, 'Public client', 'A public client has no secret.');
    const secret = randomBytes(32).toString('base64url');
    await db.query('UPDATE oauth_applications SET client_secret_encrypted = $2, updated_at = now() WHERE id = $1', [app.id, box.seal(secret, clientSecretAad(app.client_id))]);
    sendPage(res, 200, <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} created={{ secret }} />);
  });

  router.post('/oauth-applications/:id/delete', requireCsrf, async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    if (!hostPersonOf(req).site_administrator) return adminsOnly(res);
    await db.query('DELETE FROM oauth_applications WHERE id = $1 AND organization_id = $2', [app.id, hostPersonOf(req).organization_id]);
    res.redirect(303, '/developer/oauth-applications');
  });

  return router;
}
