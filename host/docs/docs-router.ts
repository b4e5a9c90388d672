/**
 * Routes of the documentation: `/docs` (the chosen API's reference; `?api=` picks it), the guides at
 * `/docs/guides/{slug}` (`/docs/guides` sends on to the first), the reference UI's files, `POST /docs/console-token`
 * (console-token-route.ts) and `/docs/api` (the hand-written reference it replaces) sent on to `/docs`.
 */
import { Router, type Request, type Response } from 'express';
import { ensureCsrfToken, getHostSession, hostSessionPerson } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { platformNameOf, renderPage, sendMessagePage, viewerOf } from '../pages/render.tsx';
import { CONSOLE_TOKEN_PATH, consoleTokenRouter } from './console-token-route.ts';
import { DocsPage, type DocumentLink } from './docs-page.tsx';
import { GuidePage } from './guide-page.tsx';
import { loadGuides } from './guides.ts';
import { referenceAssets, referenceAssetsRouter } from './reference-assets.ts';

/**
 * The pages' policy, plus what the reference UI needs: its own scripts (`script-src 'self'`: no inline script, no
 * eval), requests to this host (`connect-src 'self'`: the documents and the try-it console) and the SVG icons
 * Swagger UI's stylesheet inlines as data: URLs.
 */
export const DOCS_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The signed-in, active person of a docs page, for its header. */
async function docsViewer(req: Request, res: Response) {
  const person = await hostSessionPerson(req, res);
  return person && person.status === 'active' ? viewerOf(person) : undefined;
}

export function docsRouter(deps: {
  db: Queryable;
  documents: readonly DocumentLink[];
  /** The clock console tokens are issued by (tests set it). */
  now?: (() => Date) | undefined;
}): Router {
  const assets = referenceAssets();
  const guides = loadGuides();
  const guideLinks = guides.map((g) => ({ href: `/docs/guides/${g.slug}`, title: g.title }));
  const apiLinks = deps.documents.map((d) => ({ href: `/docs?api=${d.id}`, title: d.title }));
  const router = Router();
  router.use(referenceAssetsRouter(assets));
  router.use(consoleTokenRouter(deps));
  router.get('/docs/api', (_req, res) => res.redirect(301, '/docs?api=api'));
  router.get('/docs', async (req, res) => {
    const wanted = typeof req.query.api === 'string' ? req.query.api : undefined;
    const current = deps.documents.find((d) => d.id === wanted) ?? deps.documents[0]!;
    const viewer = await docsViewer(req, res);
    const reader = viewer && { csrfToken: await ensureCsrfToken(await getHostSession(req, res)) };
    const page = DocsPage({
      documents: deps.documents,
      current,
      guides: guideLinks,
      viewer,
      console: { reader, action: CONSOLE_TOKEN_PATH },
      assets: {
        stylesheets: [...assets.stylesheets.map((a) => a.path), assets.guides.path],
        scripts: assets.scripts.map((a) => a.path),
      },
    });
    sendDocsPage(res, 200, renderPage(page, platformNameOf(res)));
  });
  router.get('/docs/guides', (_req, res) => {
    if (guides[0]) res.redirect(302, `/docs/guides/${guides[0].slug}`);
    else sendMessagePage(res, 404, 'No guides', 'This installation of the host has no guides: read its README.');
  });
  router.get('/docs/guides/:slug', async (req, res) => {
    const guide = guides.find((g) => g.slug === req.params.slug);
    const viewer = await docsViewer(req, res);
    if (!guide) {
      sendMessagePage(res, 404, 'Guide not found', 'There is no guide at this address.', {
        viewer,
        link: { href: '/docs/guides', label: 'The guides' },
      });
      return;
    }
    const page = GuidePage({
      title: guide.title,
      html: guide.html,
      current: `/docs/guides/${guide.slug}`,
      apis: apiLinks,
      guides: guideLinks,
      viewer,
      stylesheets: [assets.guides.path],
    });
    sendDocsPage(res, 200, renderPage(page, platformNameOf(res)));
  });
  return router;
}

function sendDocsPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .type('html')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', DOCS_SECURITY_POLICY)
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', 'same-origin')
    .send(html);
}
