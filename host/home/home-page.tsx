/**
 * `GET /` for a browser (Accept: text/html): signed out, what the platform is and the way to sign in; signed in,
 * what this person can do here — the Lists, the developer account, the API reference and the add-ons of their
 * organization. Any other client (asking for JSON) gets the JSON 404 every unknown path gets.
 */
import { Router } from 'express';
import type { VNode } from 'preact';
import { listInstallations } from '../addons/index.ts';
import { hasRole, isOrganizationAdministrator } from '../auth/permissions.ts';
import type { PersonRecord } from '../auth/person.ts';
import { ensureCsrfToken, getHostSession, hostSessionPerson } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { Layout, sendPage, Table, usePlatformName, viewerOf } from '../pages/render.tsx';

/** One add-on as the home page lists it. */
interface AddonRow {
  title: string;
  extension: string;
  environment: string;
  version: number;
  applicationId: string;
}

function SignedOut(): VNode {
  const platformName = usePlatformName();
  return (
    <Layout title="Welcome" width="narrow">
      <h1>{platformName}</h1>
      <p class="ak-lede">
        The People platform of your organization: Lists and Notes, its developer API, and the add-ons that extend it.
      </p>
      <p class="ak-actions">
        <a class="ak-button ak-button--primary" href="/login?return_to=%2F">
          Log in
        </a>
      </p>
      <p class="ak-subdued">
        Building an integration? The API reference is at <a href="/docs/api">/docs/api</a>.
      </p>
    </Layout>
  );
}

function SignedIn(props: { person: PersonRecord; csrfToken: string; addons: AddonRow[] }): VNode {
  const { person, addons } = props;
  const admin = isOrganizationAdministrator(person);
  return (
    <Layout title="Home" viewer={viewerOf(person, props.csrfToken)}>
      <div class="ak-page-header">
        <h1>Welcome, {viewerOf(person).name}</h1>
        <p class="ak-lede">What you can do in {person.organization_name}.</p>
      </div>
      <div class="ak-grid">
        {hasRole(person, 'people', 'viewer') ? (
          <a class="ak-tile" href="/demo/lists">
            <strong>Lists</strong>
            <span>The Lists of your organization, with their add-ons.</span>
          </a>
        ) : null}
        <a class="ak-tile" href="/developer">
          <strong>Developer account</strong>
          <span>
            Personal access tokens
            {admin ? ', OAuth applications and connected applications' : ' and OAuth applications'}.
          </span>
        </a>
        <a class="ak-tile" href="/docs/api">
          <strong>API reference</strong>
          <span>The developer API, described by its OpenAPI document.</span>
        </a>
      </div>
      <h2>Add-ons of {person.organization_name}</h2>
      {addons.length === 0 ? (
        <p class="ak-empty">No add-on is installed for your organization yet.</p>
      ) : (
        <Table label="Add-ons">
          <thead>
            <tr>
              <th scope="col">Add-on</th>
              <th scope="col">Where</th>
              <th scope="col">Environment</th>
              <th scope="col" class="ak-num">
                Version
              </th>
              <th scope="col" class="ak-num">
                Application ID
              </th>
            </tr>
          </thead>
          <tbody>
            {addons.map((a) => (
              <tr key={`${a.applicationId}-${a.environment}-${a.extension}`}>
                <td>{a.title}</td>
                <td class="ak-mono">{a.extension}</td>
                <td>{a.environment}</td>
                <td class="ak-num">{a.version}</td>
                <td class="ak-num">{a.applicationId}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {admin ? (
        <p class="ak-subdued">
          To build one: <code>npx addon-kit create addon ../my-addon</code>, then <code>npm run dev</code> there (see
          the README's “Build your own add-on”).
        </p>
      ) : null}
    </Layout>
  );
}

/** The home page route; mounted before the catch-all 404. */
export function homeRouter(deps: { db: Queryable }): Router {
  const router = Router();
  router.get('/', async (req, res, next) => {
    // API clients keep the JSON 404 of an unknown path.
    if (req.accepts(['json', 'html']) !== 'html') return next();
    const person = await hostSessionPerson(req, res);
    if (!person || person.status !== 'active') return sendPage(res, 200, <SignedOut />);
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const addons = (await listInstallations(deps.db, person.organization_id)).flatMap((i) =>
      Object.entries(i.uiExtensions).map(([extension, e]) => ({
        title: e.title,
        extension,
        environment: i.environment,
        version: i.version,
        applicationId: i.oauthApplicationId,
      })),
    );
    sendPage(res, 200, <SignedIn person={person} csrfToken={csrfToken} addons={addons} />);
  });
  return router;
}
