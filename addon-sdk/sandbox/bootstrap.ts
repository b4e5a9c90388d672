/**
 * Runs in the sandbox frame (sandbox="allow-scripts", opaque origin, CSP connect-src 'none'). It starts the
 * add-on's worker once, hands it the host's MessagePort and then stays out of the data path; it only
 * reports worker failures to the host page.
 */
import {
  PROTOCOL_VERSION,
  parseBootMessage,
  type SandboxReadyMessage,
  type SandboxWorkerErrorMessage,
} from '../protocol/messages.ts';

/** The host page's origin, given in the frame URL, so our messages go to nobody else. */
const hostOrigin = new URL(location.href).searchParams.get('host') ?? '';
let started = false;

function tellHost(message: SandboxReadyMessage | SandboxWorkerErrorMessage): void {
  window.parent.postMessage(message, hostOrigin);
}

window.addEventListener('message', (event) => {
  // Only the embedding page may boot us, and only once; anything else (other frames, the add-on) is ignored.
  if (started || event.source !== window.parent || event.origin !== hostOrigin) return;
  const boot = parseBootMessage(event.data);
  const port = event.ports[0];
  if (!boot || !port) return;
  let addonUrl: URL;
  try {
    addonUrl = new URL(boot.addonUrl);
  } catch {
    return tellHost({ type: 'addon-kit:worker-error', message: 'Invalid add-on URL' });
  }
  // Which origins may serve add-on code is the frame's CSP script-src (the sandbox router's scriptOrigins).
  if (addonUrl.protocol !== 'https:' && addonUrl.protocol !== 'http:')
    return tellHost({ type: 'addon-kit:worker-error', message: 'Add-on script URL must be http(s)' });
  started = true;
  // A blob worker inherits this document's CSP (connect-src 'none'), and a blob URL is the only worker URL an
  // opaque origin may start; the add-on script is loaded with importScripts (script-src: the sandbox origin).
  const source = `self.addonKitBoot=${JSON.stringify(boot.boot)};importScripts(${JSON.stringify(addonUrl.href)});`;
  const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  let worker: Worker;
  try {
    worker = new Worker(blobUrl, { name: `addon:${boot.boot.extension}` });
  } catch (error) {
    return tellHost({ type: 'addon-kit:worker-error', message: `Worker could not start: ${(error as Error).message}` });
  }
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    tellHost({ type: 'addon-kit:worker-error', message: event.message || 'The add-on worker failed' });
  });
  worker.postMessage({ type: 'addon-kit:port' }, [port]);
});

tellHost({ type: 'addon-kit:sandbox-ready', protocol: PROTOCOL_VERSION });
