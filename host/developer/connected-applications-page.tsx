/**
 * Developer account: the organization's connected applications (those its people connected, and its
 * own) and who in the organization may connect each (ConnectedApplication.access_mode, enforced by
 * host/oauth). Organization administrators only: everyone else gets a 403 page; an application that is
 * neither connected in nor owned by the organization is a 404 page. The people listed for
 * `specific_people` are picked by e-mail among the organization's own people.
 */
import { Router, type Request, type Response } from 'express';
import type { VNode } from 'preact';
import { requireCsrf } from '../auth/csrf.ts';
import { displayName, loadPersonByEmail, type PersonRecord } from '../auth/person.ts';
import { isOrganizationAdministrator } from '../auth/permissions.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import {
  ACCESS_MODES,
  allowPerson,
  disallowPerson,
  findApplicationAccess,
  isAccessMode,
  listAllowedPeople,
  listApplicationAccess,
  setAccessMode,
  type AccessMode,
  type AllowedPerson,
  type ApplicationAccess,
} from '../oauth/application-access.ts';
import { CsrfField, sendMessagePage, sendPage } from '../pages/render.tsx';
import { DeveloperLayout } from './layout.tsx';

/** How each mode reads on the pages. */
export const ACCESS_MODE_LABELS: Record<AccessMode, string> = {
  anyone: 'Anyone in the organization',
  admins_only: 'Organization administrators only',
  specific_people: 'Only the people listed',
};

/** What went wrong with one of the detail page's forms. */
interface Problems {
  access_mode?: string;
  email?: string;
}

const BASE = '/developer/connected-applications';

/** The administrator of a request and the application it is about. */
interface Found {
  person: PersonRecord;
  app: ApplicationAccess;
}

function Problem(props: { text: string | undefined }): VNode | null {
  return props.text ? <p class="error">{props.text}</p> : null;
}

function ListPage(props: { apps: ApplicationAccess[]; person: PersonRecord; csrfToken: string }): VNode {
  return (
    <DeveloperLayout title="Connected applications" csrfToken={props.csrfToken}>
      <p>
        Applications people of {props.person.organization_name} connected, and the organization’s own OAuth applications. Choose who in the
        organization may connect each.
      </p>
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Owner</th>
            <th>People connected</th>
            <th>Who may connect</th>
          </tr>
        </thead>
        <tbody>
          {props.apps.map((a) => (
            <tr key={a.id} data-application-id={a.id}>
              <td>
                <a href={`${BASE}/${a.id}`}>{a.name}</a>
              </td>
              <td>{a.owner_name}</td>
              <td>{a.connected_people}</td>
              <td data-access-mode={a.access_mode}>{ACCESS_MODE_LABELS[a.access_mode]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </DeveloperLayout>
  );
}

function DetailPage(props: {
  app: ApplicationAccess;
  people: AllowedPerson[];
  person: PersonRecord;
  csrfToken: string;
  problems?: Problems;
  email?: string;
}): VNode {
  const { app, person } = props;
  const p = props.problems ?? {};
  return (
    <DeveloperLayout title={app.name} csrfToken={props.csrfToken}>
      <p>
        Owned by {app.owner_name}. People of {person.organization_name} who connected it: {app.connected_people}.
      </p>
      <form method="post" action={`${BASE}/${app.id}`}>
        <CsrfField token={props.csrfToken} />
        <fieldset>
          <legend>Who in {person.organization_name} may connect it</legend>
          {ACCESS_MODES.map((mode) => (
            <label key={mode}>
              <input type="radio" name="access_mode" value={mode} checked={app.access_mode === mode} /> {ACCESS_MODE_LABELS[mode]}
            </label>
          ))}
        </fieldset>
        <Problem text={p.access_mode} />
        <button type="submit">Save</button>
      </form>
      <p>
        A person who may no longer connect it cannot authorize it again, and the tokens they hold stop working (refresh included) until they
        may again.
      </p>
      <h2>People who may connect it</h2>
      <p>Used when “{ACCESS_MODE_LABELS.specific_people}” is chosen; organization administrators too need to be listed then.</p>
      {props.people.length ? (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>E-mail</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {props.people.map((allowed) => (
              <tr key={allowed.id} data-person-id={allowed.id}>
                <td>{displayName(allowed)}</td>
                <td>{allowed.email ?? ''}</td>
                <td>
                  <form method="post" action={`${BASE}/${app.id}/people/${allowed.id}/delete`}>
                    <CsrfField token={props.csrfToken} />
                    <button type="submit">Remove {displayName(allowed)}</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No one is listed.</p>
      )}
      <form method="post" action={`${BASE}/${app.id}/people`}>
        <CsrfField token={props.csrfToken} />
        <label for="email">E-mail of a person in {person.organization_name}</label>
        <input id="email" type="email" name="email" required value={props.email ?? ''} />
        <Problem text={p.email} />
        <button type="submit">Add person</button>
      </form>
    </DeveloperLayout>
  );
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Reads the mode form: a known mode, or the message to show. */
export function readAccessMode(body: Record<string, unknown>): { mode: AccessMode } | { problem: string } {
  const value = body.access_mode;
  if (isAccessMode(value)) return { mode: value };
  if (value === undefined || value === '') return { problem: 'Choose who may connect the application.' };
  const shown = typeof value === 'string' ? `“${value.slice(0, 100)}”` : 'more than one value';
  return { problem: `Unknown access mode ${shown}: choose one of ${ACCESS_MODES.join(', ')}.` };
}

/** Routes under `/developer/connected-applications` (behind requireHostLogin). */
export function connectedApplicationsPages(deps: { db: Queryable }): Router {
  const { db } = deps;
  const router = Router();

  const csrf = async (req: Request, res: Response) => ensureCsrfToken(await getHostSession(req, res));
  const adminsOnly = (res: Response) =>
    sendMessagePage(res, 403, 'Administrators only', 'Only organization administrators decide who may connect applications.');
  const notFound = (res: Response) =>
    sendMessagePage(res, 404, 'Not found', 'No application with that id is connected in or owned by your organization.');
  /** The administrator and the application of the request; undefined when a refusal was sent. */
  const load = async (req: Request, res: Response): Promise<Found | undefined> => {
    const person = hostPersonOf(req);
    if (!isOrganizationAdministrator(person)) return void adminsOnly(res);
    const id = String(req.params.id ?? '');
    const app = /^\d{1,18}$/.test(id) ? await findApplicationAccess(db, person.organization_id, id) : undefined;
    if (!app) return void notFound(res);
    return { person, app };
  };
  const detail = async (req: Request, res: Response, status: number, found: Found, problems?: Problems, email?: string) => {
    const people = await listAllowedPeople(db, found.person.organization_id, found.app.id);
    const page = (
      <DetailPage
        app={found.app}
        people={people}
        person={found.person}
        csrfToken={await csrf(req, res)}
        {...(problems ? { problems } : {})}
        {...(email ? { email } : {})}
      />
    );
    sendPage(res, status, page);
  };

  router.get('/connected-applications', async (req, res) => {
    const person = hostPersonOf(req);
    if (!isOrganizationAdministrator(person)) return adminsOnly(res);
    const apps = await listApplicationAccess(db, person.organization_id);
    sendPage(res, 200, <ListPage apps={apps} person={person} csrfToken={await csrf(req, res)} />);
  });

  router.get('/connected-applications/:id', async (req, res) => {
    const found = await load(req, res);
    if (found) await detail(req, res, 200, found);
  });

  router.post('/connected-applications/:id', requireCsrf, async (req, res) => {
    const found = await load(req, res);
    if (!found) return;
    const read = readAccessMode((req.body ?? {}) as Record<string, unknown>);
    if ('problem' in read) return detail(req, res, 422, found, { access_mode: read.problem });
    const { organization_id: organizationId } = found.person;
    await setAccessMode(db, { organizationId, applicationId: found.app.id, mode: read.mode });
    res.redirect(303, `${BASE}/${found.app.id}`);
  });

  router.post('/connected-applications/:id/people', requireCsrf, async (req, res) => {
    const found = await load(req, res);
    if (!found) return;
    const email = text((req.body as Record<string, unknown> | undefined)?.email).slice(0, 320);
    const { organization_id: organizationId, organization_name: organizationName } = found.person;
    if (!email) return detail(req, res, 422, found, { email: `Enter the e-mail of a person in ${organizationName}.` });
    // Someone of another organization is "no person" here: organizations never learn of each other's people.
    const candidate = await loadPersonByEmail(db, email);
    const added =
      candidate?.organization_id === organizationId &&
      (await allowPerson(db, { organizationId, applicationId: found.app.id, personId: candidate.id }));
    if (!added) {
      return detail(req, res, 422, found, { email: `No person with the e-mail ${email} in ${organizationName}.` }, email);
    }
    res.redirect(303, `${BASE}/${found.app.id}`);
  });

  router.post('/connected-applications/:id/people/:personId/delete', requireCsrf, async (req, res) => {
    const found = await load(req, res);
    if (!found) return;
    const personId = String(req.params.personId ?? '');
    const entry = { organizationId: found.person.organization_id, applicationId: found.app.id, personId };
    const removed = /^\d{1,18}$/.test(personId) && (await disallowPerson(db, entry));
    if (!removed) return sendMessagePage(res, 404, 'Not found', 'That person is not on the list of this application.');
    res.redirect(303, `${BASE}/${found.app.id}`);
  });

  return router;
}
