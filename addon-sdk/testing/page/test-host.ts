/**
 * The testing kit's host page: the real host-side pieces of mountAddon (sandbox frame and boot handshake,
 * broker with its validation and limits, UI record validation against the allow-list, the host's
 * components) without the authorization step, reporting the UI tree and diagnostics to the Node side.
 */
// @preact/signals hooks preact so RemoteRootRenderer re-renders when the receiver's signals change.
import '@preact/signals';
import { RemoteRootRenderer, SignalRemoteReceiver, type SignalRemoteReceiverNode } from '@remote-dom/preact/host';
import { h, render } from 'preact';
import { createBroker, type Broker } from '../../host/broker.ts';
import { createComponentMap } from '../../host/components/index.ts';
import { BootError, startSandbox } from '../../host/sandbox-frame.ts';
import { RejectedRecord, createRecordValidator } from '../../host/ui-records.ts';
import { componentName, type UiNode } from '../ui-tree.ts';
import { CONFIG_ELEMENT_ID, REPORT_BINDING, type TestPageConfig, type TestPageReport } from './test-page-contract.ts';

const TEXT = 3;
const ELEMENT = 1;

const config = JSON.parse(document.getElementById(CONFIG_ELEMENT_ID)!.textContent) as TestPageConfig;
const report = (message: TestPageReport) =>
  void (window as unknown as Record<string, (m: TestPageReport) => Promise<void>>)[REPORT_BINDING]!(message);

/** The receiver's tree as plain JSON: props without empty values, adjacent text joined, comments dropped. */
function snapshot(nodes: readonly SignalRemoteReceiverNode[]): UiNode['children'] {
  const out: UiNode['children'] = [];
  for (const node of nodes) {
    if (node.type === TEXT) {
      const text = (node.data as { value: string }).value;
      if (text === '') continue;
      const previous = out[out.length - 1];
      if (typeof previous === 'string') out[out.length - 1] = previous + text;
      else out.push(text);
    } else if (node.type === ELEMENT && 'element' in node) {
      const props = Object.fromEntries(
        Object.entries(node.properties.value).filter(([, v]) => v !== undefined && v !== null),
      );
      out.push({ type: componentName(node.element), props, children: snapshot(node.children.value) });
    }
  }
  return out;
}

async function start(): Promise<void> {
  const receiver = new SignalRemoteReceiver();
  const container = document.getElementById('addon')!;
  let broker: Broker | null = null;
  const sandbox = await startSandbox(document.body, {
    sandboxUrl: config.sandboxUrl,
    addonUrl: config.addonUrl,
    boot: config.boot,
    timeoutMs: config.bootTimeoutMs,
    signal: new AbortController().signal,
    onWorkerError: (message) => report({ type: 'event', event: { type: 'worker-error', message } }),
  });
  // As mountAddon does it: every batch is validated against the allow-list before the receiver sees it.
  const validate = createRecordValidator(
    (fn, args) => broker?.post({ v: 1, type: 'ui.event', fn, args }),
    config.uiOrigins,
  );
  broker = createBroker(sandbox.port, {
    endpoint: { hostBase: location.origin, installationId: config.installationId, csrfToken: () => config.csrfToken },
    timeoutMs: config.fetchTimeoutMs,
    onUiRecords(records) {
      try {
        receiver.connection.mutate(validate(records));
      } catch (error) {
        const reason = error instanceof RejectedRecord ? error.message : 'receiver refused the update';
        report({ type: 'event', event: { type: 'ui-rejected', reason } });
        return;
      }
      report({ type: 'ui', tree: snapshot(receiver.root.children.value) as UiNode[] });
    },
    onReauthorizationRequired() {},
    onEvent: (event) => report({ type: 'event', event }),
  });
  sandbox.port.onmessage = (event) => broker?.handle(event.data);
  render(h(RemoteRootRenderer, { receiver, components: createComponentMap() }), container);
  report({ type: 'ready' });
}

start().catch((error: unknown) => {
  const boot = error instanceof BootError ? error : new BootError('worker_failed', String(error));
  report({ type: 'boot-failed', code: boot.code, message: boot.message });
});
