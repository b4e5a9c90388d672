/**
 * Server-side pieces a host mounts: the sandbox origin's router, the embedder bundle router and the add-on
 * components' stylesheet.
 */
export { createSandboxRouter, sandboxFramePolicy, type AddonScript, type SandboxRouterOptions } from './sandbox-router.ts';
export { createEmbedderRouter } from './embedder-router.ts';
export { COMPONENT_STYLESHEET_PATH, readComponentStylesheet } from './component-stylesheet.ts';
export { buildAddonSdk } from '../build/build.ts';
export { DEFAULT_BUNDLE_DIR, SDK_BUNDLES, SAMPLE_ADDON_BUNDLE } from '../build/bundles.ts';
