/** Building and measuring the SDK's browser bundles (vite): what a host runs at start and `npm run build:addon-sdk` runs. */
export { buildAddonSdk } from './build.ts';
export { measureBundles, printSizes } from './size.ts';
export {
  DEFAULT_BUNDLE_DIR,
  HOST_BUNDLE,
  SANDBOX_BUNDLE,
  WORKER_BUNDLE,
  SDK_BUNDLES,
  SAMPLE_ADDON_BUNDLE,
  type BundleSpec,
} from './bundles.ts';
