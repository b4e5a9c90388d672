/**
 * Developer account: the organization's connected applications (those its people connected, and its
 * own) and who in the organization may connect each (ConnectedApplication.access_mode, enforced by
 * host/oauth). Organization administrators only: everyone else gets a 403 page; an application that is
 * neither connected in nor owned by the organization is a 404 page. The people listed for
 * `specific_people` are picked by e-mail among the organization's own people. The views are in
 * connected-applications-views.tsx.
 */
import { Router, type Request, type Response } from 'express';
import { requireCsrf } from '../auth/csrf.ts';
import { loadPersonByEmail, type PersonRecord } from '../auth/person.ts';
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
  type ApplicationAccess,
} from '../oauth/application-access.ts';
import { sendMessagePage, sendPage } from '../pages/render.tsx';
import { BASE, DetailPage, ListPage, type Problems } from './connected-applications-views.tsx';

/** The administrator of a request and the application it is about. */
interface Found {
  person: PersonRecord;
  app: ApplicationAccess;
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

/** Routes under `/developer/connected-applications` (behind requireHostLogin), one named handler each. */
export function connectedApplicationsPages(deps: { db: Queryable }): Router {
  const { db } = deps;
  const router = Router();
  router.get('/connected-applications', showList(db));
  router.get('/connected-applications/:id', showDetail(db));
  router.post('/connected-applications/:id', requireCsrf, saveAccessMode(db));
  router.post('/connected-applications/:id/people', requireCsrf, addPerson(db));
  router.post('/connected-applications/:id/people/:personId/delete', requireCsrf, removePerson(db));
  return router;
}

const csrf = async (req: Request, res: Response) => ensureCsrfToken(await getHostSession(req, res));

function adminsOnly(res: Response): void {
  sendMessagePage(
    res,
    403,
    'Administrators only',
    'Only organization administrators decide who may connect applications.',
  );
}

/** The administrator and the application of the request; undefined when a refusal was sent. */
async function load(db: Queryable, req: Request, res: Response): Promise<Found | undefined> {
  const person = hostPersonOf(req);
  if (!isOrganizationAdministrator(person)) return void adminsOnly(res);
  const id = String(req.params.id ?? '');
  const app = /^\d{1,18}$/.test(id) ? await findApplicationAccess(db, person.organization_id, id) : undefined;
  if (!app) {
    sendMessagePage(
      res,
      404,
      'Not found',
      'No application with that id is connected in or owned by your organization.',
    );
    return undefined;
  }
  return { person, app };
}

/** The detail page of `found`, with the problems of a refused form and the e-mail typed. */
async function sendDetail(
  db: Queryable,
  req: Request,
  res: Response,
  status: number,
  found: Found,
  problems?: Problems,
  email?: string,
): Promise<void> {
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
}

/** `GET /connected-applications`: the organization's applications. */
const showList = (db: Queryable) => async (req: Request, res: Response) => {
  const person = hostPersonOf(req);
  if (!isOrganizationAdministrator(person)) return adminsOnly(res);
  const apps = await listApplicationAccess(db, person.organization_id);
  sendPage(res, 200, <ListPage apps={apps} person={person} csrfToken={await csrf(req, res)} />);
};

/** `GET /connected-applications/:id`: one application. */
const showDetail = (db: Queryable) => async (req: Request, res: Response) => {
  const found = await load(db, req, res);
  if (found) await sendDetail(db, req, res, 200, found);
};

/** `POST /connected-applications/:id`: who may connect it. */
const saveAccessMode = (db: Queryable) => async (req: Request, res: Response) => {
  const found = await load(db, req, res);
  if (!found) return;
  const read = readAccessMode((req.body ?? {}) as Record<string, unknown>);
  if ('problem' in read) return sendDetail(db, req, res, 422, found, { access_mode: read.problem });
  const { organization_id: organizationId } = found.person;
  await setAccessMode(db, { organizationId, applicationId: found.app.id, mode: read.mode });
  res.redirect(303, `${BASE}/${found.app.id}`);
};

/** `POST /connected-applications/:id/people`: a person of the organization listed, by e-mail. */
const addPerson = (db: Queryable) => async (req: Request, res: Response) => {
  const found = await load(db, req, res);
  if (!found) return;
  const email = text((req.body as Record<string, unknown> | undefined)?.email).slice(0, 320);
  const { organization_id: organizationId, organization_name: organizationName } = found.person;
  if (!email)
    return sendDetail(db, req, res, 422, found, { email: `Enter the e-mail of a person in ${organizationName}.` });
  // Someone of another organization is "no person" here: organizations never learn of each other's people.
  const candidate = await loadPersonByEmail(db, email);
  const added =
    candidate?.organization_id === organizationId &&
    (await allowPerson(db, { organizationId, applicationId: found.app.id, personId: candidate.id }));
  if (!added) {
    const problem = `No person with the e-mail ${email} in ${organizationName}.`;
    return sendDetail(db, req, res, 422, found, { email: problem }, email);
  }
  res.redirect(303, `${BASE}/${found.app.id}`);
};

/** `POST /connected-applications/:id/people/:personId/delete`: a person taken off the list. */
const removePerson = (db: Queryable) => async (req: Request, res: Response) => {
  const found = await load(db, req, res);
  if (!found) return;
  const personId = String(req.params.personId ?? '');
  const entry = { organizationId: found.person.organization_id, applicationId: found.app.id, personId };
  const removed = /^\d{1,18}$/.test(personId) && (await disallowPerson(db, entry));
  if (!removed) return sendMessagePage(res, 404, 'Not found', 'That person is not on the list of this application.');
  res.redirect(303, `${BASE}/${found.app.id}`);
};
