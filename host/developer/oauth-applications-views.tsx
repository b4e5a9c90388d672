/** The OAuth applications pages' views: the list with its create form, one application's detail. */
import type { VNode } from 'preact';
import type { PersonRecord } from '../auth/person.ts';
import { Banner, CsrfField, Field, Table } from '../pages/render.tsx';
import type { ApplicationInput, ApplicationProblems } from './application-input.ts';
import { DeveloperLayout } from './layout.tsx';

/** An application as the pages show it. */
export interface ApplicationRow {
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

/** The client ID and the secret, shown once. */
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

/** The organization's applications, and the create form for administrators. */
export function ListPage(props: {
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

/** One application: its facts; for administrators its settings form and the manage card. */
export function DetailPage(props: {
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
      <ApplicationFacts app={app} person={props.person} />
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
          <ManageCard app={app} person={props.person} csrfToken={props.csrfToken} />
        </div>
      ) : null}
    </DeveloperLayout>
  );
}

/** Its IDs and type (and, for those who cannot edit them, its redirect URIs). */
function ApplicationFacts(props: { app: ApplicationRow; person: PersonRecord }): VNode {
  const { app } = props;
  return (
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
  );
}

/** Who may connect it, a new secret (confidential clients), delete. */
function ManageCard(props: { app: ApplicationRow; person: PersonRecord; csrfToken: string }): VNode {
  const { app } = props;
  return (
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
  );
}
