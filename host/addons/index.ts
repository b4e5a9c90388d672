/**
 * The add-on runtime's public face: what the rest of the host (app.ts, main.ts), the CLI and the demo use.
 * Its rooms, along the path of a call (README.md): registry/ → authorizations/ → tokens/ → upstream/ → proxy/,
 * handshake/, sandbox/.
 */
export { createAddonRuntime, type AddonRuntime, type AddonRuntimeDeps } from './addon-runtime.ts';
export {
  AddonConfigError,
  ENVIRONMENTS,
  isOrigin,
  parseAddonConfig,
  parseAddonConfigText,
  type AddonConfig,
  type Environment,
} from './config.ts';
export { AddonError } from './addon-error.ts';
export { FETCH_HEADER, UPSTREAM_HEADER, type ProxyErrorCode, type ProxyErrorSide } from '@addon-kit/sdk/protocol';
export { HANDSHAKE_COOKIE } from './handshake/index.ts';
export type { HandshakeReportMessage } from '@addon-kit/sdk/protocol';
export { AUTHORIZATION_STATES, type AuthorizationState, type PersonAuthorization } from './authorizations/index.ts';
export { authorizedAddons, revokeAuthorization, type RevokeDeps } from './lifecycle/index.ts';
export { createProxyCallCache, type ProxyCallCache } from './proxy/index.ts';
export {
  bundleDigest,
  findInstallation,
  findLiveVersion,
  integratorClientSecret,
  listInstallations,
  registerAddonVersion,
  type AddonPages,
  type Installation,
  type LiveVersion,
  type NewAddonVersion,
} from './registry/index.ts';
export {
  addonScriptUrl,
  addonSdkDir,
  buildSdkBundles,
  createSandboxApp,
  RUNTIME_BUNDLES,
  type SandboxAppDeps,
} from './sandbox/index.ts';
export { moveOnto, withIntegratorAt } from './integrator-urls.ts';
