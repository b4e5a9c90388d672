/**
 * The add-on registry API used by `addon-kit addon push`, `promote` and `dev`, called by an organization
 * administrator of the OAuth application's organization (a personal access token, or the CLI signed in; see
 * registry-credentials.ts); `registry-applications.ts` adds the routes creating an add-on's OAuth application:
 *
 * - `PUT  /addons/v1/applications/{oauth_application_id}/environments/{environment}`
 *   body `{config, bundle}` — config is the add-on config with that environment only and its
 *   placeholders already filled; bundle is the built add-on JavaScript. Adds a version (201), or answers the live
 *   one (200) when bundle and settings are the same. `links.preview`: a page mounting it, when the host has one.
 * - `POST /addons/v1/applications/{oauth_application_id}/environments/{to}/promotions`
 *   body `{from, config}` — the live bundle, scopes and UI extensions of `from` become a new version
 *   of `to`, with `to`'s environment settings from `config` (201).
 * - `GET  /addons/v1/applications/{oauth_application_id}/environments/{environment}` — the live version.
 *
 * The integrator client_secret is sealed apart from the rest of the stored config.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { authOf } from '../../auth/authenticate.ts';
import { isOrganizationAdministrator } from '../../auth/permissions.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import {
  ForbiddenError,
  InvalidResourcePayloadError,
  NotFoundError,
  ValidationError,
  type ValidationProblem,
} from '../../errors.ts';
import { AddonConfigError, ENVIRONMENTS, parseAddonConfig, type AddonConfig, type Environment } from '../config.ts';
import { findOAuthApplication } from '../../oauth/applications.ts';
import { findLiveVersion } from './live-version.ts';
import { latestVersion, promoteLatestVersion, registerAddonVersion, type VersionRow } from './versions.ts';

/** Where a host shows add-ons (the demo's List page, in development): pages that mount an insertion point. */
export interface AddonPages {
  /** A page of the organization where an add-on of one of `extensions` is mounted, if the host has one. */
  previewUrl(extensions: string[], organizationId: string): Promise<string | undefined>;
}

/** What the registry routes need. */
export interface RegistryDeps {
  db: Database;
  box: SecretBox;
  maxBundleBytes: number;
  /** Pages mounting add-ons, named in a push's answer (`links.preview`). */
  pages?: AddonPages | undefined;
}

const ORDER: Record<Environment, number> = { development: 0, beta: 1, production: 2 };

function versionDocument(row: VersionRow, oauthApplicationId: string) {
  return {
    data: {
      type: 'AddonVersion',
      id: row.id,
      attributes: {
        oauth_application_id: Number(oauthApplicationId),
        environment: row.environment,
        version: row.version,
        bundle_sha256: row.bundle_sha256,
        promoted_from_id: row.promoted_from_id,
        created_at: row.created_at.toISOString(),
      },
    },
  };
}

function environmentParam(req: Request): Environment {
  const value = String(req.params.environment);
  if (!(ENVIRONMENTS as readonly string[]).includes(value)) throw new NotFoundError();
  return value as Environment;
}

/** The OAuth application, when the requester administers its organization (404 for another organization's). */
export async function administeredApplication(
  db: Queryable,
  req: Request,
): Promise<{ id: string; organization_id: string }> {
  const { person } = authOf(req);
  const id = String(req.params.oauthApplicationId);
  if (!/^[1-9][0-9]{0,17}$/.test(id)) throw new NotFoundError();
  const app = await findOAuthApplication(db, id);
  if (!app || app.organization_id !== person.organization_id) throw new NotFoundError();
  if (!isOrganizationAdministrator(person))
    throw new ForbiddenError('Only organization administrators can register add-ons');
  return { id: app.id, organization_id: app.organization_id };
}

/** Validates a pushed config for one environment, every problem as one Validation Error entry. */
function validConfig(raw: unknown, environment: Environment, oauthApplicationId: string): AddonConfig {
  let config: AddonConfig;
  try {
    // Placeholders were filled by the CLI; one left over is reported like a missing variable.
    config = parseAddonConfig(raw, { env: {}, only: environment });
  } catch (error) {
    if (!(error instanceof AddonConfigError)) throw error;
    const problems = error.problems.map<ValidationProblem>((p) => {
      const at = p.indexOf(': ');
      return { parameter: `config.${p.slice(0, at)}`, detail: p.slice(at + 2) };
    });
    throw new ValidationError('AddonConfig', problems as [ValidationProblem, ...ValidationProblem[]]);
  }
  if (String(config.oauth_application_id) !== oauthApplicationId) {
    throw new ValidationError('AddonConfig', [
      { parameter: 'config.oauth_application_id', detail: `must be ${oauthApplicationId}, the application in the URL` },
    ]);
  }
  return config;
}

function bodyObject(req: Request): Record<string, unknown> {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidResourcePayloadError('The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The registry routes (mounted under `/addons/v1` behind PAT authentication), in order, as named handlers. */
export function registryRouter(deps: RegistryDeps): Router {
  const router = Router();
  router.put('/applications/:oauthApplicationId/environments/:environment', pushVersion(deps));
  router.post('/applications/:oauthApplicationId/environments/:environment/promotions', promoteVersion(deps));
  router.get('/applications/:oauthApplicationId/environments/:environment', showLatestVersion(deps));
  return router;
}

/** `PUT …/environments/{environment}`: a new live version of the environment, or the live one when unchanged. */
function pushVersion(deps: RegistryDeps): RequestHandler {
  const { db, box } = deps;
  return async (req, res) => {
    const environment = environmentParam(req);
    const app = await administeredApplication(db, req);
    const body = bodyObject(req);
    const config = validConfig(body.config, environment, app.id);
    if (typeof body.bundle !== 'string' || body.bundle.length === 0) {
      throw new ValidationError('AddonVersion', [
        { parameter: 'bundle', detail: 'must be the built add-on JavaScript as a non-empty string' },
      ]);
    }
    if (Buffer.byteLength(body.bundle, 'utf8') > deps.maxBundleBytes) {
      throw new ValidationError('AddonVersion', [
        { parameter: 'bundle', detail: `must be at most ${deps.maxBundleBytes} bytes` },
      ]);
    }
    // The same bundle and settings as the live version: nothing to add (PUT is idempotent).
    const live = await findLiveVersion(db, box, app.id, environment);
    const unchanged = live?.matches(config, body.bundle) === true;
    const row = unchanged
      ? live.row
      : await registerAddonVersion(db, box, {
          application: app,
          environment,
          config,
          bundle: body.bundle,
          personId: authOf(req).person.id,
        });
    const preview = await deps.pages?.previewUrl(Object.keys(config.ui_extensions), app.organization_id);
    const document = versionDocument(row, app.id);
    res.status(unchanged ? 200 : 201).json(preview ? { ...document, links: { preview } } : document);
  };
}

/** `POST …/environments/{to}/promotions`: the latest version of `from` (earlier in the order) becomes `to`'s. */
function promoteVersion(deps: RegistryDeps): RequestHandler {
  const { db, box } = deps;
  return async (req, res) => {
    const to = environmentParam(req);
    const app = await administeredApplication(db, req);
    const body = bodyObject(req);
    const from = body.from;
    if (typeof from !== 'string' || !(ENVIRONMENTS as readonly string[]).includes(from)) {
      throw new ValidationError('AddonPromotion', [
        { parameter: 'from', detail: `must be one of ${ENVIRONMENTS.join(', ')}` },
      ]);
    }
    if (ORDER[from as Environment] >= ORDER[to]) {
      throw new ValidationError('AddonPromotion', [
        {
          parameter: 'from',
          detail: `${from} cannot be promoted to ${to}: promotions go development → beta → production`,
        },
      ]);
    }
    const config = validConfig(body.config, to, app.id);
    const row = await promoteLatestVersion(db, box, {
      applicationId: app.id,
      from: from as Environment,
      to,
      config,
      personId: authOf(req).person.id,
    });
    res.status(201).json(versionDocument(row, app.id));
  };
}

/** `GET …/environments/{environment}`: the environment's latest version (404 when none was pushed). */
function showLatestVersion({ db }: RegistryDeps): RequestHandler {
  return async (req, res) => {
    const environment = environmentParam(req);
    const app = await administeredApplication(db, req);
    const row = await latestVersion(db, app.id, environment);
    if (!row) throw new NotFoundError();
    res.json(versionDocument(row, app.id));
  };
}
