/** The browser bundles of the SDK: what each is, where its entry is, and its gzip budget. */
import { fileURLToPath } from 'node:url';
import { ADDON_BUDGET_BYTES } from '../vite/size-report.ts';

/** True when running from the TypeScript sources (the repository), false from the built `dist/`. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
/** An entry of the SDK: its source file, or the compiled `.js` beside this module in `dist/`. */
const sdk = (path: string) =>
  fileURLToPath(new URL(`../${FROM_SOURCE ? path : path.replace(/\.tsx?$/, '.js')}`, import.meta.url));

/** One bundle vite builds. */
export interface BundleSpec {
  /** Output file name inside the output directory. */
  file: string;
  entry: string;
  /**
   * `es` for modules the host page imports; `iife` for the sandbox frame's classic script; `addon` for an
   * add-on, built like every add-on by `buildAddon()` (addon-sdk/vite): one classic script for the worker.
   */
  format: 'es' | 'iife' | 'addon';
  /** Gzip budget in bytes, when there is one. */
  budget?: number;
}

/** The host embedder (with preact and the remote-dom receiver), imported by the host page. */
export const HOST_BUNDLE: BundleSpec = {
  file: 'host.js',
  entry: sdk('host/index.ts'),
  format: 'es',
  budget: 20 * 1024,
};
/** The sandbox frame's bootstrap. */
export const SANDBOX_BUNDLE: BundleSpec = {
  file: 'sandbox-bootstrap.js',
  entry: sdk('sandbox/bootstrap.ts'),
  format: 'iife',
};
/** The worker SDK with the UI runtime (preact + remote-dom), as an add-on bundle includes it. */
export const WORKER_BUNDLE: BundleSpec = {
  file: 'worker-sdk.js',
  entry: sdk('worker/index.ts'),
  format: 'es',
  budget: ADDON_BUDGET_BYTES,
};
/**
 * The sample add-on for `people.list.send_message`. Its budget is tighter than an add-on's default (25 kB): the
 * sample, SDK included, stays ≤ 20 kB so that an author copying it has room for their own code within the default.
 */
export const SAMPLE_ADDON_BUNDLE: BundleSpec = {
  file: 'addons/send-message.js',
  entry: sdk('sample/send-message.tsx'),
  format: 'addon',
  budget: 20 * 1024,
};

/** Everything `npm run build:addon-sdk` produces. */
export const SDK_BUNDLES: BundleSpec[] = [HOST_BUNDLE, SANDBOX_BUNDLE, WORKER_BUNDLE, SAMPLE_ADDON_BUNDLE];

/**
 * Where the built bundles go by default (the sandbox and embedder routers serve from here): the repository's
 * `dist/addon-sdk/`, or `bundles/` inside the installed package.
 */
export const DEFAULT_BUNDLE_DIR = fileURLToPath(
  new URL(FROM_SOURCE ? '../../dist/addon-sdk/' : '../../bundles/', import.meta.url),
);
