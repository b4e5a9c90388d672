/**
 * The host's demo pages (behind the host login): the organization's Lists, and a List page with the add-ons
 * of `people.list.send_message` mounted through the browser SDK's embedder (`/assets/addon-sdk/host.js`).
 * The page's policy lets it frame only the sandbox origin and run only its own scripts.
 */
import { randomBytes } from 'node:crypto';
import { Router, type RequestHandler, type Response } from 'express';
import type { VNode } from 'preact';
import { addonScriptUrl, isOrigin, listInstallations, type AddonPages, type Installation } from '../addons/index.ts';
import { hasRole } from '../auth/permissions.ts';
import { ensureCsrfToken, getHostSession, hostPersonOf, requireHostLogin } from '../auth/session.ts';
import type { HostConfig } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import { firstListId, listDetails, listPeoplePage, listSummaries, type ListSummary } from '../people/index.ts';
import { Banner, Layout, platformNameOf, renderPage, sendMessagePage, Table, viewerOf } from '../pages/render.tsx';
import { LIST_PAGE_SIZE, ListHeader, ListPeople, ListRules, ListRunState } from './list-content.tsx';
import { SAMPLE_EXTENSION } from './sample-addon.ts';

/** One add-on to mount: the element it goes into and the options of `mountAddon` (without the CSRF token). */
interface MountSpec {
  element: string;
  options: {
    installationId: string;
    extension: string;
    props: Record<string, unknown>;
    environment: string;
    sandboxUrl: string;
    addonUrl: string;
    uiOrigins: string[];
  };
}

/** What a List page shows in an add-on's place when the embedder script cannot load. */
export const EMBEDDER_FAILED_MESSAGE =
  'The add-on could not be loaded: this page could not load the add-on SDK (/assets/addon-sdk/host.js). ' +
  "Reload the page; if it keeps failing, see the host's log.";

/**
 * Mounts each add-on and keeps it (with its diagnostics) on `window.addonKitDemo` for whoever inspects the page.
 * The embedder is imported dynamically: a static import that fails (404, network error, syntax error) would stop
 * the script silently and leave the add-on's place blank, while a rejected `import()` can say so there.
 */
const MOUNT_SCRIPT = `const setup = JSON.parse(document.getElementById('addon-kit-mounts').textContent);
const showError = (m, text) => {
  const p = document.createElement('p');
  p.className = 'ak-banner ak-banner--critical';
  p.setAttribute('role', 'alert');
  p.textContent = text;
  document.getElementById(m.element).replaceChildren(p);
};
import('/assets/addon-sdk/host.js').then(
  ({ mountAddon }) => {
    window.addonKitDemo = setup.mounts.map((m) => {
      const events = [];
      const addon = mountAddon(document.getElementById(m.element), { ...m.options, csrfToken: setup.csrfToken, onEvent: (e) => events.push(e) });
      return { installationId: m.options.installationId, addon, events };
    });
  },
  (error) => {
    console.error('addon-kit: the add-on SDK did not load', error);
    for (const m of setup.mounts) showError(m, ${JSON.stringify(EMBEDDER_FAILED_MESSAGE)});
  },
);`;

/** JSON safe inside a script element (no `</script>`, no HTML comment openers). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * Sends a demo page with a policy allowing its nonce'd script, frames from the sandbox origin only, and
 * images from the page's own origin and the declared `ui_origins` of the add-ons it mounts only.
 */
function sendDemoPage(
  res: Response,
  page: VNode,
  nonce: string,
  sandboxOrigin: string | undefined,
  imageOrigins: string[] = [],
): void {
  res
    .status(200)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        `script-src 'self' 'nonce-${nonce}'`,
        "style-src 'self'",
        "connect-src 'self'",
        `frame-src ${sandboxOrigin ?? "'none'"}`,
        ["img-src 'self'", ...new Set(imageOrigins.filter(isOrigin))].join(' '),
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join('; '),
    )
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', 'same-origin')
    .send(renderPage(page, platformNameOf(res)));
}

/**
 * The demo's List page as the page mounting add-ons of its insertion point: a push of such an add-on is answered
 * with the organization's first List page (the registry's `links.preview`).
 */
export function demoAddonPages(deps: DemoDeps): AddonPages {
  return {
    async previewUrl(extensions, organizationId) {
      if (!extensions.includes(SAMPLE_EXTENSION)) return undefined;
      const listId = await firstListId(deps.db, organizationId);
      return listId ? `${deps.config.baseUrl}/demo/lists/${listId}` : undefined;
    },
  };
}

type DemoDeps = { db: Queryable; config: HostConfig };

/** The demo pages and the embedder bundle; mounted at the root. Its routes, in order, as named handlers. */
export function demoRouter(deps: DemoDeps): Router {
  const router = Router();
  router.get('/demo', requireHostLogin, (_req, res) => res.redirect(303, '/demo/lists'));
  router.get('/demo/lists', requireHostLogin, listsPage(deps));
  router.get('/demo/lists/:id', requireHostLogin, listPage(deps));
  return router;
}

/** `GET /demo/lists`: the organization's Lists by name, each with its size. */
function listsPage({ db, config }: DemoDeps): RequestHandler {
  return async (req, res) => {
    const person = hostPersonOf(req);
    if (!hasRole(person, 'people', 'viewer'))
      return sendMessagePage(res, 403, 'Lists', 'You have no access to People.');
    const rows = await listSummaries(db, person.organization_id);
    const viewer = viewerOf(person, await ensureCsrfToken(await getHostSession(req, res)));
    sendDemoPage(
      res,
      <Layout title="Lists" viewer={viewer} section="lists">
        <div class="ak-page-header">
          <h1>Lists</h1>
          <p class="ak-lede">The Lists of {person.organization_name}: open one to use its add-ons.</p>
        </div>
        <ListsTable rows={rows} />
      </Layout>,
      randomBytes(16).toString('base64'),
      config.sandboxUrl,
    );
  };
}

function ListsTable({ rows }: { rows: ListSummary[] }) {
  return (
    <Table label="Lists">
      <thead>
        <tr>
          <th scope="col">List</th>
          <th scope="col">Description</th>
          <th scope="col" class="ak-num">
            People
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((l) => (
          <tr key={l.id}>
            <td>
              <a href={`/demo/lists/${l.id}`}>{l.name}</a>
            </td>
            <td class="ak-subdued">{l.description}</td>
            <td class="ak-num">{l.refreshed_at ? l.total_people : 'not run yet'}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The page of people asked for (`?page=N`, 1 when absent); undefined when it is not a page number. */
function pageOf(value: unknown): number | undefined {
  if (value === undefined) return 1;
  return typeof value === 'string' && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : undefined;
}

/**
 * `GET /demo/lists/:id`: one List (its run, rules and a page of its people) with the add-ons installed for its
 * insertion point mounted in sandboxed frames beside it.
 */
function listPage({ db, config }: DemoDeps): RequestHandler {
  return async (req, res) => {
    const person = hostPersonOf(req);
    if (!hasRole(person, 'people', 'viewer')) return sendMessagePage(res, 403, 'List', 'You have no access to People.');
    const id = String(req.params.id);
    // Another organization's List is as unknown as a missing one.
    const list = /^[1-9][0-9]{0,17}$/.test(id)
      ? await listDetails(db, person.organization_id, id, new Date())
      : undefined;
    if (!list) return sendMessagePage(res, 404, 'Not found', 'There is no such List.');
    const page = pageOf(req.query.page);
    const people = page
      ? await listPeoplePage(db, person.organization_id, list.id, {
          limit: LIST_PAGE_SIZE,
          offset: (page - 1) * LIST_PAGE_SIZE,
        })
      : undefined;
    if (!page || !people || (page > 1 && people.people.length === 0))
      return sendMessagePage(res, 404, 'Not found', "There is no such page of this List's people.");
    const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
    const installations = (await listInstallations(db, person.organization_id)).filter(
      (i) => SAMPLE_EXTENSION in i.uiExtensions,
    );
    const sandboxUrl = config.sandboxUrl;
    const mounts = sandboxUrl ? mountSpecs(installations, list, sandboxUrl) : [];
    const nonce = randomBytes(16).toString('base64');
    sendDemoPage(
      res,
      <Layout title={list.name} viewer={viewerOf(person, csrfToken)} section="lists">
        <ListHeader list={list} />
        <div class="ak-with-aside">
          <div class="ak-with-aside-main">
            <ListRunState list={list} />
            <ListRules list={list} />
            <ListPeople list={list} people={people.people} total={people.total} page={page} />
          </div>
          <section class="ak-with-aside-side" aria-label="Add-ons">
            <ListAddons installations={installations} sandboxUrl={sandboxUrl} />
          </section>
        </div>
        <script
          type="application/json"
          id="addon-kit-mounts"
          dangerouslySetInnerHTML={{ __html: scriptJson({ csrfToken, mounts }) }}
        />
        {mounts.length ? (
          <script type="module" nonce={nonce} dangerouslySetInnerHTML={{ __html: MOUNT_SCRIPT }} />
        ) : null}
      </Layout>,
      nonce,
      sandboxUrl && new URL(sandboxUrl).origin,
      mounts.flatMap((m) => m.options.uiOrigins),
    );
  };
}

/** What the page's script hands `mountAddon` for each installation (the List as its props). */
function mountSpecs(installations: Installation[], list: { id: string }, sandboxUrl: string): MountSpec[] {
  return installations.map((i) => ({
    element: `addon-${i.id}`,
    options: {
      installationId: i.id,
      extension: SAMPLE_EXTENSION,
      props: { listId: list.id, list_id: list.id },
      environment: i.environment,
      sandboxUrl: `${sandboxUrl}/frame.html`,
      addonUrl: addonScriptUrl(sandboxUrl, i.bundleSha256),
      uiOrigins: i.uiOrigins,
    },
  }));
}

/** Each installation's place on the page, or why there is none. */
function ListAddons({ installations, sandboxUrl }: { installations: Installation[]; sandboxUrl: string | undefined }) {
  return (
    <>
      {!sandboxUrl ? (
        <Banner tone="critical">
          <p>The add-on sandbox is not configured (ADDON_KIT_SANDBOX_URL), so no add-on can run here.</p>
        </Banner>
      ) : null}
      {sandboxUrl && installations.length === 0 ? (
        <p class="ak-empty">No add-on is installed for {SAMPLE_EXTENSION}.</p>
      ) : null}
      {sandboxUrl
        ? installations.map((i) => (
            <section key={i.id} class="ak-card ak-addon">
              <div class="ak-addon-header">
                <h2>{i.uiExtensions[SAMPLE_EXTENSION]!.title}</h2>
                <span class="ak-badge">{i.environment}</span>
              </div>
              <div id={`addon-${i.id}`} />
            </section>
          ))
        : null}
    </>
  );
}
