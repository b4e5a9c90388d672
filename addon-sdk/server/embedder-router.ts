/** Express router for the host origin: serves the host embedder bundle (`host.js`) that host pages import. */
import express, { type Router } from 'express';
import { DEFAULT_BUNDLE_DIR } from '../build/bundles.ts';

/** Serves `/host.js` from the built bundles; mount it e.g. at `/assets/addon-sdk`. */
export function createEmbedderRouter(options: { bundleDir?: string } = {}): Router {
  const root = options.bundleDir ?? DEFAULT_BUNDLE_DIR;
  const router = express.Router();
  router.get('/host.js', (_req, res) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' });
    // The directory goes in `root`: sendFile refuses (404) any path with a dot-folder in the part it checks,
    // and the default data directory is `./.addon-kit`. Only `host.js` itself is checked this way.
    res.type('text/javascript').sendFile('host.js', { root }, (error) => {
      if (error && !res.headersSent) res.status(404).type('text/plain').send('Not found');
    });
  });
  return router;
}
