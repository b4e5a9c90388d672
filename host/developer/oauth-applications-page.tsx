/**
 * Developer account: the organization's OAuth applications. Everyone in the organization sees the
 * list; only organization administrators (site_administrator) create them, and all of them manage
 * (edit, add-on scopes, new secret, delete) every application of the organization.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';
import {
  createOAuthApplication,
  deleteOAuthApplication,
  findOAuthApplication,
  findOrganizationApplication,
  listOrganizationApplications,
  rotateClientSecret,
  updateOAuthApplication,
} from '../oauth/applications.ts';
import { Banner, CsrfField, Field, sendMessagePage, sendPage, Table } from '../pages/render.tsx';
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

/** The create/edit form; `creating` adds the client type choice (fixed afterwards). */
export function ApplicationForm(props: {
  action: string;
  csrfToken: string;
  values?: Partial<ApplicationInput>;
  problems?: ApplicationProblems;
  creating: boolean;
  submit: string;
}): VNode {
  const v = props.values ?? {};
  const p = props.problems ?? {};
  const count = Object.keys(p).length;
  return (
    <form method="post" action={props.action}>
      {count ? (
        <Banner tone="critical" title={count === 1 ? 'One field needs a change' : `${count} fields need a change`}>
          <p>The application was not saved. See the messages beside the fields.</p>
        </Banner>
      ) : null}
      <CsrfField token={props.csrfToken} />
      <Field id="name" label="Name" error={p.name}>
        {(aria) => <input {...aria} type="text" name="name" required maxLength={255} value={v.name ?? ''} />}
      </Field>
      <Field id="description" label="Description" hint="Shown to people when they connect it." error={p.description}>
        {(aria) => (
          <textarea {...aria} name="description" rows={3}>
            {v.description ?? ''}
          </textarea>
        )}
      </Field>
      <Field id="url" label="URL" hint="The application's home page." error={p.url}>
        {(aria) => <input {...aria} type="url" name="url" value={v.url ?? ''} />}
      </Field>
      <Field id="redirect_uris" label="Redirect URIs" hint="One per line; compared exactly." error={p.redirect_uris}>
        {(aria) => (
          <textarea {...aria} name="redirect_uris" required rows={3}>
            {(v.redirectUris ?? []).join('\n')}
          </textarea>
        )}
      </Field>
      {props.creating ? (
        <fieldset class="ak-field">
          <legend>Client type</legend>
          <label class="ak-choice">
            <input type="radio" name="client_type" value="confidential" checked={!v.public} />
            <span>
              Confidential <small>A server keeps the secret.</small>
            </span>
          </label>
          <label class="ak-choice">
            <input type="radio" name="client_type" value="public" checked={!!v.public} />
            <span>
              Public <small>A browser or mobile app: PKCE required, no secret.</small>
            </span>
          </label>
        </fieldset>
      ) : null}
      <Field id="add_on_scopes" label="Add-on scopes" hint="Space-separated, e.g. people api." error={p.add_on_scopes}>
        {(aria) => <input {...aria} type="text" name="add_on_scopes" value={v.addOnScopes ?? ''} />}
      </Field>
      <button type="submit" class="ak-button--primary">
        {props.submit}
      </button>
    </form>
  );
}

function CreatedSecret(props: { applicationId: string; clientId: string; secret?: string | undefined }): VNode {
  return (
    <section id="created" aria-labelledby="created-title" class="ak-banner ak-banner--success">
      <h2 id="created-title" class="ak-banner-title">
        {props.secret ? 'Copy the client secret now' : 'Application ready'}
      </h2>
      <dl class="ak-facts">
        <dt>Application ID</dt>
        <dd>{props.applicationId}</dd>
        <dt>Client ID</dt>
        <dd>
          <span class="ak-secret" data-field="client_id">
            {props.clientId}
          </span>
        </dd>
        {props.secret ? (
          <>
            <dt>Client secret</dt>
            <dd>
              <span class="ak-secret" data-field="client_secret">
                {props.secret}
              </span>
            </dd>
          </>
        ) : null}
      </dl>
      {props.secret ? <p>It is shown only once.</p> : <p>Public client: no secret; use PKCE.</p>}
    </section>
  );
}

function ListPage(props: {
  apps: ApplicationRow[];
  person: PersonRecord;
  csrfToken: string;
  values?: Partial<ApplicationInput>;
  problems?: ApplicationProblems;
}): VNode {
  return (
    <DeveloperLayout
      title="OAuth applications"
      lede={`Integrations people of ${props.person.organization_name} sign in to with OAuth 2.0.`}
      person={props.person}
      csrfToken={props.csrfToken}
      tab="applications"
    >
      {props.apps.length ? (
        <Table label="OAuth applications">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="ak-num">
                Application ID
              </th>
              <th scope="col">Client ID</th>
              <th scope="col">Type</th>
            </tr>
          </thead>
          <tbody>
            {props.apps.map((a) => (
              <tr key={a.id} data-application-id={a.id}>
                <td>
                  <a href={`/developer/oauth-applications/${a.id}`}>{a.name}</a>
                </td>
                <td class="ak-num">{a.id}</td>
                <td class="ak-mono">{a.client_id}</td>
                <td>
                  <span class="ak-badge">{a.public ? 'public' : 'confidential'}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p class="ak-empty">{props.person.organization_name} has no OAuth applications yet.</p>
      )}
      {props.person.site_administrator ? (
        <section class="ak-card" aria-labelledby="new-application">
          <h2 id="new-application">New OAuth application</h2>
          <ApplicationForm
            action="/developer/oauth-applications"
            csrfToken={props.csrfToken}
            creating
            submit="Create application"
            {...(props.values ? { values: props.values } : {})}
            {...(props.problems ? { problems: props.problems } : {})}
          />
        </section>
      ) : (
        <p class="ak-subdued">Only organization administrators create and manage OAuth applications.</p>
      )}
    </DeveloperLayout>
  );
}

function DetailPage(props: {
  app: ApplicationRow;
  person: PersonRecord;
  csrfToken: string;
  created?: { secret?: string | undefined };
  values?: Partial<ApplicationInput>;
  problems?: ApplicationProblems;
}): VNode {
  const { app } = props;
  const values: Partial<ApplicationInput> = props.values ?? {
    name: app.name,
    description: app.description,
    url: app.url,
    redirectUris: app.redirect_uris,
    addOnScopes: app.add_on_scopes,
  };
  return (
    <DeveloperLayout
      title={app.name}
      lede={app.description || undefined}
      person={props.person}
      csrfToken={props.csrfToken}
      tab="applications"
    >
      {props.created ? (
        <CreatedSecret applicationId={app.id} clientId={app.client_id} secret={props.created.secret} />
      ) : null}
      <dl class="ak-facts">
        <dt>Application ID</dt>
        <dd>{app.id}</dd>
        <dt>Client ID</dt>
        <dd class="ak-mono">{app.client_id}</dd>
        <dt>Type</dt>
        <dd>{app.public ? 'public' : 'confidential'}</dd>
        {props.person.site_administrator ? null : (
          <>
            <dt>Redirect URIs</dt>
            <dd>{app.redirect_uris.join(', ')}</dd>
          </>
        )}
      </dl>
      {props.person.site_administrator ? (
        <div class="ak-columns">
          <section class="ak-card" aria-labelledby="settings">
            <h2 id="settings">Settings</h2>
            <ApplicationForm
              action={`/developer/oauth-applications/${app.id}`}
              csrfToken={props.csrfToken}
              creating={false}
              submit="Save"
              values={values}
              {...(props.problems ? { problems: props.problems } : {})}
            />
          </section>
          <aside class="ak-card" aria-labelledby="manage">
            <h2 id="manage">Manage</h2>
            <p>
              <a href={`/developer/connected-applications/${app.id}`}>
                Who in {props.person.organization_name} may connect it
              </a>
            </p>
            {app.public ? null : (
              <form method="post" action={`/developer/oauth-applications/${app.id}/secret`}>
                <CsrfField token={props.csrfToken} />
                <p class="ak-small ak-subdued">A new secret replaces the current one at once.</p>
                <button type="submit">New client secret</button>
              </form>
            )}
            <form method="post" action={`/developer/oauth-applications/${app.id}/delete`}>
              <CsrfField token={props.csrfToken} />
              <p class="ak-small ak-subdued">Deleting the application cannot be undone.</p>
              <button type="submit" class="ak-button--danger">
                Delete application
              </button>
            </form>
          </aside>
        </div>
      ) : null}
    </DeveloperLayout>
  );
}

/** Routes under `/developer/oauth-applications` (behind requireHostLogin). */
export function oauthApplicationsPages(deps: { db: Queryable; box: SecretBox }): Router {
  const { db, box } = deps;
  const router = Router();

  const list = (orgId: string): Promise<ApplicationRow[]> => listOrganizationApplications(db, orgId);
  // Another organization's application is "not found", never "forbidden".
  const load = async (req: Request) => {
    const id = String(req.params.id ?? '');
    if (!/^\d{1,18}$/.test(id)) return undefined;
    return findOrganizationApplication(db, hostPersonOf(req).organization_id, id);
  };
  const csrf = async (req: Request, res: Response) => ensureCsrfToken(await getHostSession(req, res));
  const notFound = (res: Response) =>
    sendMessagePage(res, 404, 'Not found', 'That OAuth application does not exist in your organization.');
  const adminsOnly = (res: Response) =>
    sendMessagePage(
      res,
      403,
      'Administrators only',
      'Only organization administrators create and manage OAuth applications.',
    );

  router.get('/oauth-applications', async (req, res) => {
    const person = hostPersonOf(req);
    sendPage(
      res,
      200,
      <ListPage apps={await list(person.organization_id)} person={person} csrfToken={await csrf(req, res)} />,
    );
  });

  router.post('/oauth-applications', requireCsrf, async (req, res) => {
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    const { input, problems } = readApplicationInput((req.body ?? {}) as Record<string, unknown>);
    if (Object.keys(problems).length) {
      return sendPage(
        res,
        422,
        <ListPage
          apps={await list(person.organization_id)}
          person={person}
          csrfToken={await csrf(req, res)}
          values={input}
          problems={problems}
        />,
      );
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
    const app = (await findOAuthApplication(db, created.id))!;
    sendPage(
      res,
      201,
      <DetailPage
        app={app}
        person={person}
        csrfToken={await csrf(req, res)}
        created={{ secret: created.client_secret }}
      />,
    );
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
    const { input, problems } = readApplicationInput({
      ...((req.body ?? {}) as Record<string, unknown>),
      client_type: app.public ? 'public' : 'confidential',
    });
    if (Object.keys(problems).length) {
      return sendPage(
        res,
        422,
        <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} values={input} problems={problems} />,
      );
    }
    await updateOAuthApplication(db, person.organization_id, app.id, {
      name: input.name,
      description: input.description,
      url: input.url,
      redirectUris: input.redirectUris,
      addOnScopes: input.addOnScopes,
    });
    res.redirect(303, `/developer/oauth-applications/${app.id}`);
  });

  router.post('/oauth-applications/:id/secret', requireCsrf, async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    if (app.public) return sendMessagePage(res, 400, 'Public client', 'A public client has no secret.');
    const secret = await rotateClientSecret(db, box, app);
    sendPage(res, 200, <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} created={{ secret }} />);
  });

  router.post('/oauth-applications/:id/delete', requireCsrf, async (req, res) => {
    const app = await load(req);
    if (!app) return notFound(res);
    if (!hostPersonOf(req).site_administrator) return adminsOnly(res);
    await deleteOAuthApplication(db, hostPersonOf(req).organization_id, app.id);
    res.redirect(303, '/developer/oauth-applications');
  });

  return router;
}
