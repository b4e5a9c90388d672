/** The add-on runtime's public face: what the rest of the host and the CLI use. */
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
export { AUTHORIZATION_STATES, type AuthorizationState } from './token-vault.ts';
export { createSandboxApp, addonScriptUrl, type SandboxAppDeps } from './sandbox-origin.ts';
export { addonSdkDir } from './bundle-dir.ts';
export { buildSdkBundles, RUNTIME_BUNDLES } from './sdk-bundles.ts';
