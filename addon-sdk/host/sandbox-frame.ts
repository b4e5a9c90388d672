/**
 * Creates the sandboxed frame and runs the boot handshake: wait for the frame's ready message, send it the
 * add-on URL and a MessagePort, and wait for the worker's hello with a matching protocol version.
 */
import {
  PROTOCOL_VERSION,
  parseSandboxMessage,
  parseWorkerMessage,
  type BootData,
  type SandboxBootMessage,
} from '../protocol/messages.ts';

/** Why an add-on did not start. */
export type BootFailure = 'boot_timeout' | 'protocol_mismatch' | 'worker_failed' | 'unmounted';

/** A started sandbox: the port to the worker, and how to tear it all down. */
export interface Sandbox {
  port: MessagePort;
  /** Removes the frame, which terminates the worker. */
  destroy(): void;
}

export interface SandboxOptions {
  /** URL of the sandbox frame page (on the sandbox origin), e.g. `https://sandbox.example/frame.html`. */
  sandboxUrl: string;
  /** URL of the add-on's worker script; must be on the sandbox origin (the frame refuses others). */
  addonUrl: string;
  boot: BootData;
  timeoutMs: number;
  signal: AbortSignal;
  /** Worker failures after boot (uncaught errors). */
  onWorkerError(message: string): void;
}

/** Thrown when the add-on did not start. */
export class BootError extends Error {
  constructor(
    readonly code: BootFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Starts the sandbox inside `container`; resolves once the worker said hello. */
export function startSandbox(container: HTMLElement, options: SandboxOptions): Promise<Sandbox> {
  const frameUrl = new URL(options.sandboxUrl, location.href);
  frameUrl.searchParams.set('host', location.origin);
  frameUrl.searchParams.set('protocol', String(PROTOCOL_VERSION));
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('referrerpolicy', 'no-referrer');
  iframe.setAttribute('aria-hidden', 'true');
  iframe.title = 'add-on sandbox';
  iframe.style.display = 'none';
  iframe.src = frameUrl.href;

  return new Promise<Sandbox>((resolve, reject) => {
    const channel = new MessageChannel();
    let booted = false;
    let settled = false;
    const destroy = () => {
      window.removeEventListener('message', onWindowMessage);
      channel.port1.close();
      iframe.remove();
    };
    const failBoot = (code: BootFailure, message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      destroy();
      reject(new BootError(code, message));
    };
    const timer = setTimeout(
      () => failBoot('boot_timeout', `The add-on did not start within ${options.timeoutMs} ms`),
      options.timeoutMs,
    );
    options.signal.addEventListener('abort', () => failBoot('unmounted', 'Unmounted while starting'), { once: true });

    // The frame's origin is opaque ("null"), so identity is the frame's window object, never the origin.
    function onWindowMessage(event: MessageEvent) {
      if (event.source !== iframe.contentWindow || event.source === null) return;
      const message = parseSandboxMessage(event.data);
      if (!message) return;
      if (message.type === 'addon-kit:worker-error') {
        if (settled) options.onWorkerError(message.message);
        else failBoot('worker_failed', message.message);
        return;
      }
      if (booted) return;
      if (message.protocol !== PROTOCOL_VERSION)
        return failBoot('protocol_mismatch', `Sandbox speaks protocol ${message.protocol}, host ${PROTOCOL_VERSION}`);
      booted = true;
      const boot: SandboxBootMessage = {
        type: 'addon-kit:boot',
        protocol: PROTOCOL_VERSION,
        addonUrl: new URL(options.addonUrl, frameUrl).href,
        boot: options.boot,
      };
      // '*' is the only target an opaque origin matches; the message holds no secret and goes to this window only.
      iframe.contentWindow!.postMessage(boot, '*', [channel.port2]);
    }

    channel.port1.onmessage = (event) => {
      if (settled) return;
      const hello = parseWorkerMessage(event.data);
      if (!hello || hello.type !== 'hello') return;
      if (hello.protocol !== PROTOCOL_VERSION)
        return failBoot('protocol_mismatch', `Add-on speaks protocol ${hello.protocol}, host ${PROTOCOL_VERSION}`);
      settled = true;
      clearTimeout(timer);
      channel.port1.onmessage = null;
      resolve({ port: channel.port1, destroy });
    };

    window.addEventListener('message', onWindowMessage);
    container.append(iframe);
  });
}
