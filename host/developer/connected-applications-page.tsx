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
import { CsrfField, Field, sendMessagePage, sendPage, Table } from '../pages/render.tsx';
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

function ListPage(props: { apps: ApplicationAccess[]; person: PersonRecord; csrfToken: string }): VNode {
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
    <DeveloperLayout
      title={app.name}
      lede={`Owned by ${app.owner_name}. People of ${person.organization_name} who connected it: ${app.connected_people}.`}
      person={person}
      csrfToken={props.csrfToken}
      tab="connected"
    >
      <div class="ak-columns">
        <section class="ak-card" aria-labelledby="who-may-connect">
          <h2 id="who-may-connect">Who may connect it</h2>
          <form method="post" action={`${BASE}/${app.id}`}>
            <CsrfField token={props.csrfToken} />
            <fieldset class="ak-field" {...(p.access_mode ? { 'aria-describedby': 'access_mode-error' } : {})}>
              <legend class="ak-visually-hidden">Who in {person.organization_name} may connect it</legend>
              {ACCESS_MODES.map((mode) => (
                <label key={mode} class="ak-choice">
                  <input type="radio" name="access_mode" value={mode} checked={app.access_mode === mode} />{' '}
                  {ACCESS_MODE_LABELS[mode]}
                </label>
              ))}
              {p.access_mode ? (
                <p class="ak-field-error" id="access_mode-error">
                  {p.access_mode}
                </p>
              ) : null}
            </fieldset>
            <button type="submit" class="ak-button--primary">
              Save
            </button>
          </form>
          <p class="ak-small ak-subdued">
            A person who may no longer connect it cannot authorize it again, and the tokens they hold stop working
            (refresh included) until they may again.
          </p>
        </section>
        <section class="ak-card" aria-labelledby="people-listed">
          <h2 id="people-listed">People who may connect it</h2>
          <p class="ak-small ak-subdued">
            Used when “{ACCESS_MODE_LABELS.specific_people}” is chosen; organization administrators too need to be
            listed then.
          </p>
          {props.people.length ? (
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
          )}
          <form method="post" action={`${BASE}/${app.id}/people`}>
            <CsrfField token={props.csrfToken} />
            <Field id="email" label={`E-mail of a person in ${person.organization_name}`} error={p.email}>
              {(aria) => <input {...aria} type="email" name="email" required value={props.email ?? ''} />}
            </Field>
            <button type="submit">Add person</button>
          </form>
        </section>
      </div>
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
    sendMessagePage(
      res,
      403,
      'Administrators only',
      'Only organization administrators decide who may connect applications.',
    );
  const notFound = (res: Response) =>
    sendMessagePage(
      res,
      404,
      'Not found',
      'No application with that id is connected in or owned by your organization.',
    );
  /** The administrator and the application of the request; undefined when a refusal was sent. */
  const load = async (req: Request, res: Response): Promise<Found | undefined> => {
    const person = hostPersonOf(req);
    if (!isOrganizationAdministrator(person)) return void adminsOnly(res);
    const id = String(req.params.id ?? '');
    const app = /^\d{1,18}$/.test(id) ? await findApplicationAccess(db, person.organization_id, id) : undefined;
    if (!app) return void notFound(res);
    return { person, app };
  };
  const detail = async (
    req: Request,
    res: Response,
    status: number,
    found: Found,
    problems?: Problems,
    email?: string,
  ) => {
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
      return detail(
        req,
        res,
        422,
        found,
        { email: `No person with the e-mail ${email} in ${organizationName}.` },
        email,
      );
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
