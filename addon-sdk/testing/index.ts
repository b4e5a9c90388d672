/** The testing kit for add-on authors: run an add-on in Chromium against a fake host, read and use its UI. */
export { startAddonTest, type AddonTestOptions } from './start-addon-test.ts';
export type { AddonTest } from './addon-test-session.ts';
export type {
  RecordedRequest,
  ResponseScripts,
  Responder,
  ScriptedResponse,
  ScriptedFailure,
} from './scripted-responses.ts';
export { textOf, type UiNode, type UiComponent } from './ui-tree.ts';
export type { AddonTestEvent } from './page/test-page-contract.ts';
export { launchChromium, defaultChromiumPath } from './launch-chromium.ts';
export { sendTestWebhook, type TestWebhookOptions, type TestWebhookResult } from './send-test-webhook.ts';
