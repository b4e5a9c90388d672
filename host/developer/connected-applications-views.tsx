/** The connected-applications pages' views: the list, and one application's detail (its two cards). */
import type { VNode } from 'preact';
import { displayName, type PersonRecord } from '../auth/person.ts';
import {
  ACCESS_MODES,
  type AccessMode,
  type AllowedPerson,
  type ApplicationAccess,
} from '../oauth/application-access.ts';
import { CsrfField, Field, Table } from '../pages/render.tsx';
import { DeveloperLayout } from './layout.tsx';

/** How each mode reads on the pages. */
export const ACCESS_MODE_LABELS: Record<AccessMode, string> = {
  anyone: 'Anyone in the organization',
  admins_only: 'Organization administrators only',
  specific_people: 'Only the people listed',
};

/** What went wrong with one of the detail page's forms. */
export interface Problems {
  access_mode?: string;
  email?: string;
}

export const BASE = '/developer/connected-applications';

/** The list of the organization's connected applications. */
export function ListPage(props: { apps: ApplicationAccess[]; person: PersonRecord; csrfToken: string }): VNode {
  return (
    <DeveloperLayout
      title="Connected applications"
      lede={`Applications people of ${props.person.organization_name} connected, and the organization’s own OAuth applications. Choose who in the organization may connect each.`}
      person={props.person}
      csrfToken={props.csrfToken}
      tab="connected"
    >
      {props.apps.length ? (
        <Table label="Connected applications">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Owner</th>
              <th scope="col" class="ak-num">
                People connected
              </th>
              <th scope="col">Who may connect</th>
            </tr>
          </thead>
          <tbody>
            {props.apps.map((a) => (
              <tr key={a.id} data-application-id={a.id}>
                <td>
                  <a href={`${BASE}/${a.id}`}>{a.name}</a>
                </td>
                <td>{a.owner_name}</td>
                <td class="ak-num">{a.connected_people}</td>
                <td data-access-mode={a.access_mode}>{ACCESS_MODE_LABELS[a.access_mode]}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : (
        <p class="ak-empty">No application is connected in {props.person.organization_name} yet.</p>
      )}
    </DeveloperLayout>
  );
}

/** One application: who may connect it (the mode) and the people listed for `specific_people`. */
export function DetailPage(props: {
  app: ApplicationAccess;
  people: AllowedPerson[];
  person: PersonRecord;
  csrfToken: string;
  problems?: Problems;
  email?: string;
}): VNode {
  const { app, person } = props;
  return (
    <DeveloperLayout
      title={app.name}
      lede={`Owned by ${app.owner_name}. People of ${person.organization_name} who connected it: ${app.connected_people}.`}
      person={person}
      csrfToken={props.csrfToken}
      tab="connected"
    >
      <div class="ak-columns">
        <AccessModeCard app={app} person={person} csrfToken={props.csrfToken} problem={props.problems?.access_mode} />
        <AllowedPeopleCard
          app={app}
          people={props.people}
          person={person}
          csrfToken={props.csrfToken}
          problem={props.problems?.email}
          email={props.email}
        />
      </div>
    </DeveloperLayout>
  );
}

/** The mode form. */
function AccessModeCard(props: {
  app: ApplicationAccess;
  person: PersonRecord;
  csrfToken: string;
  problem: string | undefined;
}): VNode {
  const { app, person } = props;
  return (
    <section class="ak-card" aria-labelledby="who-may-connect">
      <h2 id="who-may-connect">Who may connect it</h2>
      <form method="post" action={`${BASE}/${app.id}`}>
        <CsrfField token={props.csrfToken} />
        <fieldset class="ak-field" {...(props.problem ? { 'aria-describedby': 'access_mode-error' } : {})}>
          <legend class="ak-visually-hidden">Who in {person.organization_name} may connect it</legend>
          {ACCESS_MODES.map((mode) => (
            <label key={mode} class="ak-choice">
              <input type="radio" name="access_mode" value={mode} checked={app.access_mode === mode} />{' '}
              {ACCESS_MODE_LABELS[mode]}
            </label>
          ))}
          {props.problem ? (
            <p class="ak-field-error" id="access_mode-error">
              {props.problem}
            </p>
          ) : null}
        </fieldset>
        <button type="submit" class="ak-button--primary">
          Save
        </button>
      </form>
      <p class="ak-small ak-subdued">
        A person who may no longer connect it cannot authorize it again, and the tokens they hold stop working (refresh
        included) until they may again.
      </p>
    </section>
  );
}

/** The people listed, each with its remove button, and the form adding one by e-mail. */
function AllowedPeopleCard(props: {
  app: ApplicationAccess;
  people: AllowedPerson[];
  person: PersonRecord;
  csrfToken: string;
  problem: string | undefined;
  email: string | undefined;
}): VNode {
  const { app, person } = props;
  return (
    <section class="ak-card" aria-labelledby="people-listed">
      <h2 id="people-listed">People who may connect it</h2>
      <p class="ak-small ak-subdued">
        Used when “{ACCESS_MODE_LABELS.specific_people}” is chosen; organization administrators too need to be listed
        then.
      </p>
      <AllowedPeopleTable app={app} people={props.people} csrfToken={props.csrfToken} />
      <form method="post" action={`${BASE}/${app.id}/people`}>
        <CsrfField token={props.csrfToken} />
        <Field id="email" label={`E-mail of a person in ${person.organization_name}`} error={props.problem}>
          {(aria) => <input {...aria} type="email" name="email" required value={props.email ?? ''} />}
        </Field>
        <button type="submit">Add person</button>
      </form>
    </section>
  );
}

/** The people listed, or a line saying no one is. */
function AllowedPeopleTable(props: { app: ApplicationAccess; people: AllowedPerson[]; csrfToken: string }): VNode {
  const { app } = props;
  return props.people.length ? (
    <Table label="People who may connect it">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">E-mail</th>
          <th scope="col">
            <span class="ak-visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.people.map((allowed) => (
          <tr key={allowed.id} data-person-id={allowed.id}>
            <td>{displayName(allowed)}</td>
            <td>{allowed.email ?? ''}</td>
            <td class="ak-cell-actions">
              <form method="post" action={`${BASE}/${app.id}/people/${allowed.id}/delete`}>
                <CsrfField token={props.csrfToken} />
                <button type="submit" class="ak-button--danger ak-button--small">
                  Remove {displayName(allowed)}
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  ) : (
    <p class="ak-empty">No one is listed.</p>
  );
}
