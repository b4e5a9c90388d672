/** Express router for the host origin: serves the host embedder bundle (`host.js`) that host pages import. */
import { join } from 'node:path';
import express, { type Router } from 'express';
import { DEFAULT_BUNDLE_DIR } from '../build/bundles.ts';

/** Serves `/host.js` from the built bundles; mount it e.g. at `/assets/addon-sdk`. */
export function createEmbedderRouter(options: { bundleDir?: string } = {}): Router {
  const file = join(options.bundleDir ?? DEFAULT_BUNDLE_DIR, 'host.js');
  const router = express.Router();
  router.get('/host.js', (_req, res) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' });
    res.type('text/javascript').sendFile(file, (error) => {
      if (error && !res.headersSent) res.status(404).type('text/plain').send('Not found');
    });
  });
  return router;
}
