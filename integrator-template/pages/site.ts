/**
 * What every page of the integrator shares: its name (config `serviceName`), its own stylesheet and favicon. Both
 * are read once into memory and served under content-hashed paths (cached for good), so the pages' CSP can say
 * `style-src 'self'`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Router, type Response } from 'express';

/** One file held in memory, at its content-hashed path. */
interface Asset {
  path: string;
  type: string;
  body: Buffer;
}

/** The integrator's name and page assets. */
export interface PageSite {
  /** Shown in every page's top bar and title. */
  name: string;
  stylesheet: Asset;
  favicon: Asset;
}

function load(name: string, extension: string, type: string): Asset {
  const body = readFileSync(new URL(`./assets/${name}.${extension}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}-${hash}.${extension}`, type, body };
}

/** The site of the integrator called `name`. */
export function createPageSite(name: string): PageSite {
  return {
    name,
    stylesheet: load('integrator', 'css', 'text/css; charset=utf-8'),
    favicon: load('favicon', 'svg', 'image/svg+xml'),
  };
}

function send(res: Response, asset: Asset, cacheControl: string): void {
  res.set({ 'Content-Type': asset.type, 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff' });
  res.send(asset.body);
}

/** Serves the stylesheet and favicon at their hashed paths, and the favicon at `/favicon.ico` for a day. */
export function pageSiteRouter(site: PageSite): Router {
  const router = Router();
  const immutable = 'public, max-age=31536000, immutable';
  router.get(site.stylesheet.path, (_req, res) => send(res, site.stylesheet, immutable));
  router.get(site.favicon.path, (_req, res) => send(res, site.favicon, immutable));
  router.get('/favicon.ico', (_req, res) => send(res, site.favicon, 'public, max-age=86400'));
  return router;
}
