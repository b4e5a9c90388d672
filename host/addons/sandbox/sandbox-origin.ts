/**
 * The add-on sandbox origin (a second listener): the sandbox frame, its bootstrap and the add-on scripts.
 * Add-on scripts are loaded by an opaque-origin worker that sends no cookies, so they are served here by
 * content hash (`/addons/<bundle_sha256>.js`, read from the registered versions) rather than behind the
 * host session. A hash names exactly one immutable bundle and cannot be guessed.
 */
import express, { type Express } from 'express';
import { createSandboxRouter } from '@addon-kit/sdk/server';
import type { Queryable } from '../../db/database.ts';
import { bundleByHash } from '../registry/index.ts';

/** What the sandbox listener serves from. */
export interface SandboxAppDeps {
  db: Queryable;
  /** The host's public base URL: the only page allowed to frame the sandbox. */
  hostBaseUrl: string;
  /** This listener's public origin. */
  sandboxUrl: string;
  /** Built SDK bundles (`sandbox-bootstrap.js`). */
  bundleDir: string;
}

/** The sandbox origin's app. */
export function createSandboxApp(deps: SandboxAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(
    createSandboxRouter({
      hostOrigins: [new URL(deps.hostBaseUrl).origin],
      sandboxOrigin: new URL(deps.sandboxUrl).origin,
      bundleDir: deps.bundleDir,
      addons: async (name) => {
        if (!/^[0-9a-f]{64}$/.test(name)) return undefined;
        const bundle = await bundleByHash(deps.db, name);
        return bundle === undefined ? undefined : { source: bundle };
      },
    }),
  );
  app.use((_req, res) => {
    // nosniff on every answer of this origin, its 404s too: a browser must never take one for a script.
    res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
  });
  return app;
}

/** Where the sandbox serves a bundle. */
export function addonScriptUrl(sandboxUrl: string, bundleSha256: string): string {
  return `${sandboxUrl}/addons/${bundleSha256}.js`;
}
