/**
 * The add-on sandbox origin (the second listener: the sandboxed frame and the add-on scripts by content hash,
 * cookie-free) and the SDK's browser bundles the host page and the frame load.
 */
export { addonSdkDir } from './bundle-dir.ts';
export { addonScriptUrl, createSandboxApp, type SandboxAppDeps } from './sandbox-origin.ts';
export { buildSdkBundles, RUNTIME_BUNDLES } from './sdk-bundles.ts';
