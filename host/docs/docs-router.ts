/**
 * Routes of the API reference: `/docs` (the chosen API's reference; `?api=` picks it), the reference UI's files,
 * and `/docs/api` (the hand-written reference it replaces) sent on to `/docs`.
 */
import { Router } from 'express';
import { hostSessionPerson } from '../auth/session.ts';
import { platformNameOf, renderPage, viewerOf } from '../pages/render.tsx';
import { DocsPage, type DocumentLink } from './docs-page.tsx';
import { referenceAssets, referenceAssetsRouter } from './reference-assets.ts';

/**
 * The pages' policy, plus what the reference UI needs: its own scripts (`script-src 'self'`: no inline script, no
 * eval), requests to this host (`connect-src 'self'`: the documents and the try-it console) and the SVG icons
 * Swagger UI's stylesheet inlines as data: URLs.
 */
export const DOCS_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function docsRouter(deps: { documents: readonly DocumentLink[] }): Router {
  const assets = referenceAssets();
  const router = Router();
  router.use(referenceAssetsRouter(assets));
  router.get('/docs/api', (_req, res) => res.redirect(301, '/docs?api=api'));
  router.get('/docs', async (req, res) => {
    const wanted = typeof req.query.api === 'string' ? req.query.api : undefined;
    const current = deps.documents.find((d) => d.id === wanted) ?? deps.documents[0]!;
    const person = await hostSessionPerson(req, res);
    const viewer = person && person.status === 'active' ? viewerOf(person) : undefined;
    const page = DocsPage({
      documents: deps.documents,
      current,
      viewer,
      assets: {
        stylesheets: assets.stylesheets.map((a) => a.path),
        scripts: assets.scripts.map((a) => a.path),
      },
    });
    res
      .status(200)
      .type('html')
      .set('Cache-Control', 'no-store')
      .set('Content-Security-Policy', DOCS_SECURITY_POLICY)
      .set('X-Frame-Options', 'DENY')
      .set('Referrer-Policy', 'same-origin')
      .send(renderPage(page, platformNameOf(res)));
  });
  return router;
}
