/**
 * The static assets of the host's pages: one stylesheet (the design tokens and page styles of host.css, then the
 * add-on components' styles) and the favicon. Read once into memory and served under content-hashed paths
 * (`/assets/host-<hash>.css`, cached for good), so the pages' CSP can say `style-src 'self'`; nothing is sent with
 * `sendFile`, whose dot-folder check would refuse an install location such as `~/.npm/…`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Router, type Response } from 'express';
import { COMPONENT_STYLESHEET_PATH } from '@addon-kit/sdk/server';

/** One asset held in memory. */
export interface PageAsset {
  /** The path pages link, e.g. `/assets/host-3f9a0c1b2d4e.css`. */
  path: string;
  type: string;
  body: Buffer;
}

/** The assets every host page links. */
export interface PageAssets {
  stylesheet: PageAsset;
  favicon: PageAsset;
}

/** Where the assets are read from: stylesheets concatenated in order, and the SVG favicon. */
export interface PageAssetSources {
  stylesheets: string[];
  favicon: string;
}

/** The host's own files: host.css, the add-on components' stylesheet, favicon.svg. */
export const DEFAULT_PAGE_ASSET_SOURCES: PageAssetSources = {
  stylesheets: [fileURLToPath(new URL('./assets/host.css', import.meta.url)), COMPONENT_STYLESHEET_PATH],
  favicon: fileURLToPath(new URL('./assets/favicon.svg', import.meta.url)),
};

/** Cached for a year and never revalidated: a changed file gets a new path. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** An asset under a content-hashed path. */
export function hashed(name: string, extension: string, type: string, body: Buffer): PageAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}-${hash}.${extension}`, type, body };
}

/** Reads and hashes the assets. */
export function loadPageAssets(sources: PageAssetSources = DEFAULT_PAGE_ASSET_SOURCES): PageAssets {
  const css = Buffer.from(sources.stylesheets.map((file) => readFileSync(file, 'utf8')).join('\n'));
  return {
    stylesheet: hashed('host', 'css', 'text/css; charset=utf-8', css),
    favicon: hashed('favicon', 'svg', 'image/svg+xml', readFileSync(sources.favicon)),
  };
}

let loaded: PageAssets | undefined;

/** The host's assets, read on first use. */
export function pageAssets(): PageAssets {
  loaded ??= loadPageAssets();
  return loaded;
}

/** Sends an asset (never sniffed). */
export function sendAsset(res: Response, asset: PageAsset, cacheControl: string): void {
  res.set({ 'Content-Type': asset.type, 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff' });
  res.send(asset.body);
}

/**
 * Serves the assets at their hashed paths, and the favicon at `/favicon.ico` too (browsers ask for it whatever
 * the page links; an SVG answers it, for a day, since that path carries no hash).
 */
export function pageAssetsRouter(assets: PageAssets = pageAssets()): Router {
  const router = Router();
  router.get(assets.stylesheet.path, (_req, res) => sendAsset(res, assets.stylesheet, IMMUTABLE));
  router.get(assets.favicon.path, (_req, res) => sendAsset(res, assets.favicon, IMMUTABLE));
  router.get('/favicon.ico', (_req, res) => sendAsset(res, assets.favicon, 'public, max-age=86400'));
  return router;
}
