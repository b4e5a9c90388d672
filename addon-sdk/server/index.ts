/**
 * Server-side pieces a host mounts: the sandbox origin's router, the embedder bundle router, the add-on
 * components' stylesheet, and the specs of
 * the bundles they serve. Building them (vite) is `@addon-kit/sdk/build`, kept apart so serving never loads vite.
 */
export {
  createSandboxRouter,
  sandboxFramePolicy,
  type AddonScript,
  type SandboxRouterOptions,
} from './sandbox-router.ts';
export { createEmbedderRouter } from './embedder-router.ts';
export { COMPONENT_STYLESHEET_PATH, readComponentStylesheet } from './component-stylesheet.ts';
export {
  DEFAULT_BUNDLE_DIR,
  HOST_BUNDLE,
  SANDBOX_BUNDLE,
  WORKER_BUNDLE,
  SDK_BUNDLES,
  SAMPLE_ADDON_BUNDLE,
  type BundleSpec,
} from '../build/bundles.ts';
export {
  AUTHENTICITY_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  authenticitySignature,
  signDelivery,
  standardKey,
  standardSignature,
  type SecretFormat,
  type SignInput,
} from './webhook-signature.ts';
export { deliveryBody, type DeliveryBodyInput } from './webhook-body.ts';
