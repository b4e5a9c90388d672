/**
 * The registry's routes for an add-on's OAuth application, so `addon-kit addon dev` gives a new add-on one without
 * a visit to the developer pages (an organization administrator, as every registry route):
 *
 * - `POST /addons/v1/applications` body `{name, description?, scopes?, redirect_uris}` — a confidential OAuth
 *   application of the caller's organization with those add-on scopes (201; its `client_secret` once). A
 *   `${ADDON_OAUTH_APPLICATION_ID}` in a redirect URI becomes the new application's id, as in an add-on config's
 *   `redirect_url`, so the config's development completion URL can be sent as written.
 * - `POST /addons/v1/applications/{oauth_application_id}/redirect_uris` body `{redirect_uri}` — adds one redirect
 *   URI (201), or answers 200 when the application has it already: the completion URL of the integrator a
 *   development version is pointed at.
 */
import { Router, type Request } from 'express';
import { authOf } from '../../auth/authenticate.ts';
import { isOrganizationAdministrator } from '../../auth/permissions.ts';
import { SCOPES } from '../../auth/require-scope.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { ForbiddenError, InvalidResourcePayloadError, ValidationError, type ValidationProblem } from '../../errors.ts';
import {
  addRedirectUri,
  createOAuthApplication,
  findOAuthApplication,
  setRedirectUris,
} from '../../oauth/applications.ts';
import { redirectUriProblem } from '../../oauth/redirect-uri-problem.ts';
import { administeredApplication } from './registry.ts';

/** The placeholder of an add-on config's application id, filled in redirect URIs with the new id. */
const APPLICATION_ID_PLACEHOLDER = '${ADDON_OAUTH_APPLICATION_ID}';

/** The application as the registry reports it (the secret only when just created). */
function applicationDocument(
  app: { id: string; name: string; client_id: string; redirect_uris: string[]; add_on_scopes: string },
  clientSecret?: string,
) {
  return {
    data: {
      type: 'OauthApplication',
      id: app.id,
      attributes: {
        name: app.name,
        client_id: app.client_id,
        redirect_uris: app.redirect_uris,
        add_on_scopes: app.add_on_scopes,
        ...(clientSecret ? { client_secret: clientSecret } : {}),
      },
    },
  };
}

function bodyOf(req: Request): Record<string, unknown> {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidResourcePayloadError('The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Every problem of the new application's fields, each with its parameter. */
function applicationProblems(body: Record<string, unknown>): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const { name, description, scopes, redirect_uris: uris } = body;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 255)
    problems.push({ parameter: 'name', detail: 'must be a name of 1 to 255 characters' });
  if (description !== undefined && (typeof description !== 'string' || description.length > 2000))
    problems.push({ parameter: 'description', detail: 'must be a text of at most 2000 characters' });
  if (scopes !== undefined) {
    const unknown = Array.isArray(scopes)
      ? scopes.filter((s) => typeof s !== 'string' || !(SCOPES as readonly string[]).includes(s))
      : [scopes];
    if (unknown.length)
      problems.push({ parameter: 'scopes', detail: `must be a list of host scopes (${SCOPES.join(', ')})` });
  }
  if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string'))
    problems.push({ parameter: 'redirect_uris', detail: 'must be a non-empty list of absolute URLs' });
  else {
    const problem = uris
      .map((u: string) => redirectUriProblem(u.replaceAll(APPLICATION_ID_PLACEHOLDER, '1')))
      .find(Boolean);
    if (problem) problems.push({ parameter: 'redirect_uris', detail: problem });
  }
  return problems;
}

/** The routes above (mounted under `/addons/v1` behind the registry's authentication). */
export function registryApplicationsRouter(deps: { db: Database; box: SecretBox }): Router {
  const { db, box } = deps;
  const router = Router();

  router.post('/applications', async (req, res) => {
    const { person } = authOf(req);
    if (!isOrganizationAdministrator(person))
      throw new ForbiddenError('Only organization administrators can register add-ons');
    const body = bodyOf(req);
    const problems = applicationProblems(body);
    if (problems.length) throw new ValidationError('OauthApplication', problems as [ValidationProblem]);
    const uris = body.redirect_uris as string[];
    const created = await db.transaction(async (tx) => {
      const app = await createOAuthApplication(tx, box, {
        organizationId: person.organization_id,
        name: (body.name as string).trim(),
        description: typeof body.description === 'string' ? body.description : '',
        // Replaced in the same transaction once the id exists, so no client ever sees the placeholder.
        redirectUris: uris,
        addOnScopes: ((body.scopes as string[] | undefined) ?? []).join(' '),
        createdById: person.id,
      });
      await setRedirectUris(
        tx,
        app.id,
        uris.map((u) => u.replaceAll(APPLICATION_ID_PLACEHOLDER, app.id)),
      );
      return app;
    });
    const app = (await findOAuthApplication(db, created.id))!;
    res.status(201).json(applicationDocument(app, created.client_secret));
  });

  router.post('/applications/:oauthApplicationId/redirect_uris', async (req, res) => {
    const { id } = await administeredApplication(db, req);
    const uri = bodyOf(req).redirect_uri;
    const problem = typeof uri === 'string' ? redirectUriProblem(uri) : 'must be an absolute URL';
    if (problem) throw new ValidationError('OauthApplication', [{ parameter: 'redirect_uri', detail: problem }]);
    const added = await addRedirectUri(db, id, uri as string);
    res.status(added ? 201 : 200).json(applicationDocument((await findOAuthApplication(db, id))!));
  });

  return router;
}
