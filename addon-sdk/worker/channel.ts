/**
 * The worker's end of the bridge: waits for the port the sandbox frame hands over, says hello with the
 * protocol version, queues what the add-on sends before that, and dispatches valid host messages.
 */
import { PROTOCOL_VERSION, parseHostMessage, type HostMessage, type WorkerMessage } from '../protocol/messages.ts';

type Listener = (message: HostMessage) => void;

let port: MessagePort | null = null;
const queued: Array<[WorkerMessage, Transferable[]]> = [];
const listeners = new Set<Listener>();

/** Sends a message to the host page (queued until the port arrives). */
export function sendToHost(message: WorkerMessage, transfer: Transferable[] = []): void {
  if (port) port.postMessage(message, transfer);
  else queued.push([message, transfer]);
}

/** Registers a handler for every valid host message; unknown messages never reach it. */
export function onHostMessage(listener: Listener): void {
  listeners.add(listener);
}

function connect(event: MessageEvent): void {
  const data = event.data as { type?: unknown } | null;
  if (port || !data || data.type !== 'addon-kit:port' || !event.ports[0]) return;
  port = event.ports[0];
  port.onmessage = (e) => {
    const message = parseHostMessage(e.data);
    if (message) for (const listener of listeners) listener(message);
  };
  port.postMessage({ v: 1, type: 'hello', protocol: PROTOCOL_VERSION } satisfies WorkerMessage);
  for (const [message, transfer] of queued.splice(0)) port.postMessage(message, transfer);
}

// Only the sandbox frame that created this worker can post to its global scope.
if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  globalThis.addEventListener('message', connect as EventListener);
}
