/**
 * The host page's reads of its installations (session cookie): the listing that creates installation rows on
 * first sight and hands out the session's CSRF token, an installation's bundle, and the person's handshake state.
 */
import type { RequestHandler } from 'express';
import { ensureCsrfToken, getHostSession } from '../../auth/session.ts';
import type { PersonRecord } from '../../auth/person.ts';
import type { Queryable } from '../../db/database.ts';
import type { TokenVault } from '../authorizations/index.ts';
import { addonPersonOf } from '../session-gate.ts';
import {
  findInstallation,
  installationBundle,
  installationNotFound,
  listInstallations,
  type Installation,
} from './installations.ts';

/** What the installation routes read. */
export interface InstallationRouteDeps {
  db: Queryable;
  vault: TokenVault;
  /** The host's public base URL (each installation's `bundle_url`). */
  baseUrl: string;
}

/** The installation of the person's organization, or 404 (another organization's id looks unknown). */
export async function installationOf(db: Queryable, id: string, person: PersonRecord): Promise<Installation> {
  const installation = await findInstallation(db, id, person.organization_id);
  if (!installation) throw installationNotFound();
  return installation;
}

/** `GET /installations`: every installation the person's organization sees, its state, and the CSRF token. */
export function listInstallationsRoute(deps: InstallationRouteDeps): RequestHandler {
  return async (req, res) => {
    const person = addonPersonOf(req);
    const installations = await listInstallations(deps.db, person.organization_id);
    const states = await deps.vault.store.statesOfPerson(person.id);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    res.set('Cache-Control', 'no-store').json({
      data: installations.map((i) => ({
        id: i.id,
        oauth_application_id: Number(i.oauthApplicationId),
        environment: i.environment,
        version: i.version,
        ui_extensions: i.uiExtensions,
        state: states.get(i.id) ?? 'uninitialized',
        ui_origins: i.uiOrigins,
        bundle_url: `${deps.baseUrl}/addons/installations/${i.id}/bundle.js`,
      })),
      csrf_token: csrfToken,
    });
  };
}

/** `GET /installations/:id/bundle.js`: the live version's bundle (tools and tests; browsers load it by hash). */
export function installationBundleRoute(deps: Pick<InstallationRouteDeps, 'db'>): RequestHandler {
  return async (req, res) => {
    const installation = await installationOf(deps.db, String(req.params.id), addonPersonOf(req));
    const bundle = await installationBundle(deps.db, installation.versionId);
    res
      .set('Content-Type', 'text/javascript; charset=utf-8')
      .set('Cache-Control', 'private, no-cache')
      .set('ETag', `"${installation.bundleSha256}"`)
      .send(bundle);
  };
}

/** `GET /installations/:id/state`: the handshake state of the logged-in person. */
export function installationStateRoute(deps: Pick<InstallationRouteDeps, 'db' | 'vault'>): RequestHandler {
  return async (req, res) => {
    const person = addonPersonOf(req);
    const installation = await installationOf(deps.db, String(req.params.id), person);
    const record = await deps.vault.find(installation.id, person.id);
    res.set('Cache-Control', 'no-store').json({ state: record?.state ?? 'uninitialized' });
  };
}
