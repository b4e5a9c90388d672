/**
 * Express router for the sandbox origin: the frame page, its bootstrap and the add-on worker scripts, each
 * with the headers that make the sandbox a sandbox. Mount it on a listener whose origin differs from the
 * host's (in development: a second port).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { DEFAULT_BUNDLE_DIR } from '../build/bundles.ts';

export interface SandboxRouterOptions {
  /** Origins of host pages allowed to embed the frame (CSP frame-ancestors), e.g. `http://localhost:4000`. */
  hostOrigins: string[];
  /** This listener's public origin; default: derived from the request's Host header. */
  sandboxOrigin?: string;
  /** Directory with the built bundles (`npm run build:addon-sdk`); default `dist/addon-sdk`. */
  bundleDir?: string;
  /**
   * Other origins allowed to serve add-on scripts (CSP script-src), e.g. a CDN. Add-on code is fetched by
   * an opaque-origin worker, so such a route gets no cookies: it must not need a session.
   */
  scriptOrigins?: string[];
  /**
   * Add-on worker scripts by name (`[a-z0-9][a-z0-9_-]*`), served at `/addons/<name>.js`: a map to files,
   * or a lookup returning a file or the script source (e.g. a bundle stored in the database).
   */
  addons?: Record<string, string> | ((name: string) => AddonScript | undefined | Promise<AddonScript | undefined>);
}

/** Where a looked-up add-on script comes from. */
export type AddonScript = { file: string } | { source: string | Uint8Array };

/**
 * The frame's policy: scripts only from the sandbox origin, workers only from blob: (which inherit this
 * policy), no network at all (connect-src 'none'), and sandboxed even when opened directly.
 */
export function sandboxFramePolicy(sandboxOrigin: string, hostOrigins: string[], scriptOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    `script-src ${[sandboxOrigin, ...scriptOrigins].join(' ')}`,
    'worker-src blob:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${hostOrigins.length ? hostOrigins.join(' ') : "'none'"}`,
    'sandbox allow-scripts',
  ].join('; ');
}

const FRAME_HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>add-on sandbox</title></head><body><script src="sandbox-bootstrap.js"></script></body></html>';

/** Creates the sandbox origin's router. */
export function createSandboxRouter(options: SandboxRouterOptions): Router {
  const bundleDir = options.bundleDir ?? DEFAULT_BUNDLE_DIR;
  const router = express.Router();
  const originOf = (req: Request) => options.sandboxOrigin ?? `${req.protocol}://${req.get('host')}`;

  const common = (res: Response) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache' });
  };
  const sendScript = async (res: Response, script: AddonScript) => {
    let source: string | Uint8Array;
    try {
      source = 'source' in script ? script.source : await readFile(script.file);
    } catch {
      res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
      return;
    }
    common(res);
    res.type('text/javascript').send(typeof source === 'string' ? source : Buffer.from(source));
  };

  router.get('/frame.html', (req, res) => {
    common(res);
    res.set('Content-Security-Policy', sandboxFramePolicy(originOf(req), options.hostOrigins, options.scriptOrigins));
    res.type('html').send(FRAME_HTML);
  });
  router.get('/sandbox-bootstrap.js', (_req, res) =>
    sendScript(res, { file: join(bundleDir, 'sandbox-bootstrap.js') }),
  );
  router.get('/addons/:file', async (req, res) => {
    const match = /^([a-z0-9][a-z0-9_-]{0,63})\.js$/.exec(String(req.params.file));
    const addons = options.addons ?? {};
    const name = match?.[1];
    let script: AddonScript | undefined;
    if (name !== undefined) {
      if (typeof addons === 'function') script = await addons(name);
      else if (Object.hasOwn(addons, name)) script = { file: addons[name]! };
    }
    if (!script) {
      res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
      return;
    }
    await sendScript(res, script);
  });
  return router;
}
