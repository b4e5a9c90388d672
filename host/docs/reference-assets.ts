/**
 * The reference UI's files: Swagger UI's bundle and stylesheet as swagger-ui-dist ships them, and the host's own
 * starter script and style overrides, held in memory under content-hashed paths like the pages' assets.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { IMMUTABLE, hashed, sendAsset, type PageAsset } from '../pages/page-assets.ts';

export interface ReferenceAssets {
  scripts: PageAsset[];
  stylesheets: PageAsset[];
  /** The guides' and the navigation's styles (every docs page links it; the guides link only it). */
  guides: PageAsset;
}

const dist = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const own = (file: string) => fileURLToPath(new URL(`./assets/${file}`, import.meta.url));
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

let loaded: ReferenceAssets | undefined;

/** The files, read on first use. */
export function referenceAssets(): ReferenceAssets {
  loaded ??= {
    scripts: [
      hashed('swagger-ui-bundle', 'js', JS, readFileSync(join(dist(), 'swagger-ui-bundle.js'))),
      hashed('reference', 'js', JS, readFileSync(own('reference.js'))),
    ],
    stylesheets: [
      hashed('swagger-ui', 'css', CSS, readFileSync(join(dist(), 'swagger-ui.css'))),
      hashed('reference', 'css', CSS, readFileSync(own('reference.css'))),
    ],
    guides: hashed('guides', 'css', CSS, readFileSync(own('guides.css'))),
  };
  return loaded;
}

/** Serves every file at its hashed path, cached for good. */
export function referenceAssetsRouter(assets: ReferenceAssets = referenceAssets()): Router {
  const router = Router();
  for (const asset of [...assets.scripts, ...assets.stylesheets, assets.guides])
    router.get(asset.path, (_req, res) => sendAsset(res, asset, IMMUTABLE));
  return router;
}
