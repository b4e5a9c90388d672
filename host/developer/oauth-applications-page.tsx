/**
 * Developer account: the organization's OAuth applications. Everyone in the organization sees the
 * list; only organization administrators (site_administrator) create them, and all of them manage
 * (edit, add-on scopes, new secret, delete) every application of the organization. The views are in
 * oauth-applications-views.tsx.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { requireCsrf } from '../auth/csrf.ts';
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
import { sendMessagePage, sendPage } from '../pages/render.tsx';
import { readApplicationInput } from './application-input.ts';
import { DetailPage, ListPage, type ApplicationRow } from './oauth-applications-views.tsx';

interface Deps {
  db: Queryable;
  box: SecretBox;
}

/** Routes under `/developer/oauth-applications` (behind requireHostLogin), one named handler each. */
export function oauthApplicationsPages(deps: Deps): Router {
  const router = Router();
  router.get('/oauth-applications', showList(deps));
  router.post('/oauth-applications', requireCsrf, createApplication(deps));
  router.get('/oauth-applications/:id', showDetail(deps));
  router.post('/oauth-applications/:id', requireCsrf, updateApplication(deps));
  router.post('/oauth-applications/:id/secret', requireCsrf, newClientSecret(deps));
  router.post('/oauth-applications/:id/delete', requireCsrf, deleteApplication(deps));
  return router;
}

const list = (db: Queryable, orgId: string): Promise<ApplicationRow[]> => listOrganizationApplications(db, orgId);

/** The application of the request within the person's organization: another organization's is "not found", never "forbidden". */
async function load(db: Queryable, req: Request) {
  const id = String(req.params.id ?? '');
  if (!/^\d{1,18}$/.test(id)) return undefined;
  return findOrganizationApplication(db, hostPersonOf(req).organization_id, id);
}

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

/** `GET /oauth-applications`: the organization's applications. */
const showList =
  ({ db }: Deps): RequestHandler =>
  async (req, res) => {
    const person = hostPersonOf(req);
    sendPage(
      res,
      200,
      <ListPage apps={await list(db, person.organization_id)} person={person} csrfToken={await csrf(req, res)} />,
    );
  };

/** `POST /oauth-applications` (administrators): a new application, its secret shown once. */
const createApplication =
  ({ db, box }: Deps): RequestHandler =>
  async (req, res) => {
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    const { input, problems } = readApplicationInput((req.body ?? {}) as Record<string, unknown>);
    if (Object.keys(problems).length) {
      return sendPage(
        res,
        422,
        <ListPage
          apps={await list(db, person.organization_id)}
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
  };

/** `GET /oauth-applications/:id`: one application. */
const showDetail =
  ({ db }: Deps): RequestHandler =>
  async (req, res) => {
    const app = await load(db, req);
    if (!app) return notFound(res);
    sendPage(res, 200, <DetailPage app={app} person={hostPersonOf(req)} csrfToken={await csrf(req, res)} />);
  };

/** `POST /oauth-applications/:id` (administrators): its settings (the client type stays). */
const updateApplication =
  ({ db }: Deps): RequestHandler =>
  async (req, res) => {
    const app = await load(db, req);
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
  };

/** `POST /oauth-applications/:id/secret` (administrators, confidential clients): a new secret, shown once. */
const newClientSecret =
  ({ db, box }: Deps): RequestHandler =>
  async (req, res) => {
    const app = await load(db, req);
    if (!app) return notFound(res);
    const person = hostPersonOf(req);
    if (!person.site_administrator) return adminsOnly(res);
    if (app.public) return sendMessagePage(res, 400, 'Public client', 'A public client has no secret.');
    const secret = await rotateClientSecret(db, box, app);
    sendPage(res, 200, <DetailPage app={app} person={person} csrfToken={await csrf(req, res)} created={{ secret }} />);
  };

/** `POST /oauth-applications/:id/delete` (administrators). */
const deleteApplication =
  ({ db }: Deps): RequestHandler =>
  async (req, res) => {
    const app = await load(db, req);
    if (!app) return notFound(res);
    if (!hostPersonOf(req).site_administrator) return adminsOnly(res);
    await deleteOAuthApplication(db, hostPersonOf(req).organization_id, app.id);
    res.redirect(303, '/developer/oauth-applications');
  };
