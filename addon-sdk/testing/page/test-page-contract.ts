/** What the testing kit's Node side and its host page tell each other (both import this file). */
import type { BrokerEvent } from '../../host/broker.ts';
import type { BootData } from '../../protocol/messages.ts';
import type { UiNode } from '../ui-tree.ts';

/** The page's configuration, embedded as JSON in the page (`<script type="application/json" id=…>`). */
export interface TestPageConfig {
  sandboxUrl: string;
  addonUrl: string;
  installationId: string;
  csrfToken: string;
  boot: BootData;
  bootTimeoutMs: number;
  fetchTimeoutMs: number;
  /** Origins the add-on's `Image`/`Link` URLs may name (the config's `ui_origins`). */
  uiOrigins: string[];
}

/** Id of the script element holding the {@link TestPageConfig}. */
export const CONFIG_ELEMENT_ID = 'addon-kit-test-config';
/** Name of the function the Node side exposes to the page for its reports. */
export const REPORT_BINDING = 'addonKitTestReport';

/** A diagnostic of the running add-on (what mountAddon's `onEvent` reports, minus status changes). */
export type AddonTestEvent =
  BrokerEvent | { type: 'worker-error'; message: string } | { type: 'ui-rejected'; reason: string };

/** One report from the page. */
export type TestPageReport =
  | { type: 'ready' }
  | { type: 'boot-failed'; code: string; message: string }
  | { type: 'ui'; tree: UiNode[] }
  | { type: 'event'; event: AddonTestEvent };
