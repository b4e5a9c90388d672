/**
 * mountAddon: puts one add-on into a host page element. Shows the Authorize button until the handshake is
 * ready, then starts the sandbox, brokers its calls and renders its UI with the allow-listed components.
 * After every authorization that ends ready, a running add-on is restarted in a fresh worker: its tokens
 * changed, and whatever failed before (a reauthorization_required call) is retried from the start.
 */
import { RemoteRootRenderer, SignalRemoteReceiver } from '@remote-dom/preact/host';
import { signal } from '@preact/signals';
import { render } from 'preact';
import type { AddOnEnvironment, HandshakeSide } from '../protocol/messages.ts';
import { fetchHandshakeState, runAuthorizePopup, type HandshakeState } from './authorization.ts';
import { createBroker, type Broker, type BrokerEvent } from './broker.ts';
import { createComponentMap } from './components/index.ts';
import { BootError, startSandbox, type BootFailure, type Sandbox } from './sandbox-frame.ts';
import { RejectedRecord, createRecordValidator } from './ui-records.ts';

export interface MountOptions {
  /** The installation (add-on × organization) whose handshake state and proxy are used. */
  installationId: string;
  /** The extension point, e.g. `people.list.send_message`. */
  extension: string;
  /** Plain data the add-on reads with addOnContext(). */
  props?: Record<string, unknown>;
  environment?: AddOnEnvironment;
  /** The host session's CSRF token (or a function returning the current one). */
  csrfToken: string | (() => string | Promise<string>);
  /** The sandbox frame page on the sandbox origin, e.g. `http://127.0.0.1:4001/frame.html`. */
  sandboxUrl: string;
  /** The add-on's worker script, absolute or relative to sandboxUrl (must be on the sandbox origin). */
  addonUrl: string;
  /**
   * Origins the add-on's images and links may use: its installation's `ui_origins` (from the config). Other
   * URLs are refused (`ui-rejected`); the page's CSP img-src should list the same origins. Default: none.
   */
  uiOrigins?: string[];
  /** Origin (and path prefix) of the host's /addons routes; default: this page's origin. */
  hostBase?: string;
  bootTimeoutMs?: number;
  fetchTimeoutMs?: number;
  /** Diagnostics: status changes, settled fetches, dropped messages, rejected UI batches, worker errors. */
  onEvent?: (event: MountEvent) => void;
}

/** Where a mounted add-on is. */
export type MountStatus =
  | { kind: 'checking' }
  /** `declined`: the person chose Deny in the last popup, on the host's consent or the integrator's. */
  | { kind: 'needs_authorization'; state: HandshakeState; declined?: HandshakeSide }
  | { kind: 'authorizing' }
  | { kind: 'starting' }
  | { kind: 'running' }
  | { kind: 'failed'; code: BootFailure; message: string }
  | { kind: 'unmounted' };

export type MountEvent =
  | BrokerEvent
  | { type: 'status'; status: MountStatus }
  | { type: 'worker-error'; message: string }
  | { type: 'ui-rejected'; reason: string };

/** A mounted add-on. */
export interface MountedAddon {
  /** Resolves when the add-on runs; rejects (BootError) when it fails to start or is unmounted first. */
  readonly ready: Promise<void>;
  status(): MountStatus;
  /** Fails pending calls (`unmounted`), aborts their proxy requests, terminates the worker, clears the element. */
  unmount(): void;
}

/**
 * Mounts an add-on into `element` on a host page: a sandboxed frame on the sandbox origin runs the add-on's
 * worker, its UI is rendered into `element`, and its fetches go through the host's proxy with the session's
 * CSRF token. Until the person has authorized the add-on, the element shows the Authorize button.
 *
 * @example
 * ```ts
 * import { mountAddon } from '@addon-kit/sdk/host';
 *
 * const addon = mountAddon(document.querySelector<HTMLElement>('#send-message')!, {
 *   installationId: '7',
 *   extension: 'people.list.send_message',
 *   props: { listId: '42' },
 *   csrfToken: document.querySelector<HTMLMetaElement>('meta[name=csrf-token]')!.content,
 *   sandboxUrl: 'http://127.0.0.1:4001/frame.html',
 *   addonUrl: 'http://127.0.0.1:4001/addons/sha256-….js',
 *   onEvent: (event) => console.debug(event),
 * });
 * await addon.ready; // rejects with a BootError when it cannot start
 * // later, when the page no longer shows it:
 * addon.unmount();
 * ```
 */
// Long because it is one mount's state machine (status, sandbox, broker and receiver change together in its
// closures) inside the embedder's 20 kB gzip budget, which splitting it into functions passing that state overran.
export function mountAddon(element: HTMLElement, options: MountOptions): MountedAddon {
  const hostBase = options.hostBase ?? location.origin;
  const csrfToken = typeof options.csrfToken === 'string' ? () => options.csrfToken as string : options.csrfToken;
  const emit = options.onEvent ?? (() => {});
  const lifetime = new AbortController();
  const status = signal<MountStatus>({ kind: 'checking' });
  const reauthorize = signal(false);
  /** Where the last popup's Deny was, until an authorization succeeds. */
  const declined = signal<HandshakeSide | null>(null);
  let receiver = new SignalRemoteReceiver();
  const components = createComponentMap();
  let broker: Broker | null = null;
  let sandbox: Sandbox | null = null;
  let settleReady: { resolve(): void; reject(e: Error): void } | null = null;
  const ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
  ready.catch(() => {});

  const setStatus = (next: MountStatus) => {
    if (status.value.kind === 'unmounted') return;
    status.value = next;
    emit({ type: 'status', status: next });
  };

  const shell = document.createElement('div');
  const frames = document.createElement('div');
  shell.className = 'addon-kit-addon';
  element.append(shell, frames);

  const needsAuthorization = (state: HandshakeState): MountStatus =>
    declined.value
      ? { kind: 'needs_authorization', state, declined: declined.value }
      : { kind: 'needs_authorization', state };

  /** Reads the state; with `restart`, a running add-on whose state is ready starts over in a fresh worker. */
  async function checkState(restart = false): Promise<void> {
    try {
      const state = await fetchHandshakeState(hostBase, options.installationId, lifetime.signal);
      if (state === 'ready') {
        reauthorize.value = false;
        declined.value = null;
        if (sandbox && restart) stop();
        if (!sandbox) await start();
        else setStatus({ kind: 'running' });
      } else if (sandbox) {
        reauthorize.value = true;
        setStatus({ kind: 'running' });
      } else setStatus(needsAuthorization(state));
    } catch {
      if (!lifetime.signal.aborted) setStatus(needsAuthorization('uninitialized'));
    }
  }

  async function authorize(): Promise<void> {
    declined.value = null;
    if (!sandbox) setStatus({ kind: 'authorizing' });
    const result = await runAuthorizePopup(hostBase, options.installationId, lifetime.signal);
    if (typeof result === 'object' && result.outcome === 'declined') declined.value = result.side!;
    if (!lifetime.signal.aborted) await checkState(true);
  }

  /** Ends the running add-on (worker, broker, rendered tree) so that start() begins afresh. */
  function stop(): void {
    broker?.close();
    sandbox?.destroy();
    broker = null;
    sandbox = null;
    receiver = new SignalRemoteReceiver();
  }

  async function start(): Promise<void> {
    setStatus({ kind: 'starting' });
    try {
      sandbox = await startSandbox(frames, {
        sandboxUrl: options.sandboxUrl,
        addonUrl: options.addonUrl,
        boot: {
          environment: options.environment ?? 'production',
          extension: options.extension,
          props: options.props ?? {},
        },
        timeoutMs: options.bootTimeoutMs ?? 10_000,
        signal: lifetime.signal,
        onWorkerError: (message) => emit({ type: 'worker-error', message }),
      });
    } catch (error) {
      const boot = error instanceof BootError ? error : new BootError('worker_failed', String(error));
      if (boot.code !== 'unmounted') setStatus({ kind: 'failed', code: boot.code, message: boot.message });
      settleReady?.reject(boot);
      return;
    }
    const validate = createRecordValidator(
      (fn, args) => broker?.post({ v: 1, type: 'ui.event', fn, args }),
      options.uiOrigins,
    );
    broker = createBroker(sandbox.port, {
      endpoint: { hostBase, installationId: options.installationId, csrfToken },
      timeoutMs: options.fetchTimeoutMs ?? 30_000,
      onUiRecords(records) {
        try {
          receiver.connection.mutate(validate(records));
        } catch (error) {
          emit({
            type: 'ui-rejected',
            reason: error instanceof RejectedRecord ? error.message : 'receiver refused the update',
          });
        }
      },
      onReauthorizationRequired() {
        reauthorize.value = true;
      },
      onEvent: emit,
    });
    sandbox.port.onmessage = (event) => broker?.handle(event.data);
    setStatus({ kind: 'running' });
    settleReady?.resolve();
  }

  function Shell() {
    const current = status.value;
    const authorizeButton = (label: string) => (
      <button type="button" class="addon-kit-authorize" onClick={() => void authorize()}>
        {label}
      </button>
    );
    const side = declined.value;
    const declinedText =
      side &&
      `You declined the authorization on ${side === 'host' ? 'this platform’s' : 'the add-on service’s'} consent page.`;
    switch (current.kind) {
      case 'checking':
      case 'starting':
        return (
          <p class="addon-kit-status addon-kit-status-loading" role="status">
            Loading add-on…
          </p>
        );
      case 'authorizing':
        return (
          <p class="addon-kit-status addon-kit-status-loading" role="status">
            Waiting for authorization…
          </p>
        );
      case 'needs_authorization':
        return (
          <div class="addon-kit-status">
            <p>
              {declinedText ||
                (current.state === 'reauthorization_required'
                  ? 'This add-on needs to be authorized again.'
                  : 'This add-on needs your authorization before it can run.')}
            </p>
            {authorizeButton('Authorize')}
          </div>
        );
      case 'failed':
        return (
          <p class="addon-kit-status" role="alert">
            The add-on could not start ({current.code}).
          </p>
        );
      case 'unmounted':
        return null;
      case 'running':
        return (
          <>
            {reauthorize.value ? (
              <div class="addon-kit-status" role="alert">
                <p>{declinedText || 'This add-on needs to be authorized again.'}</p>
                {authorizeButton('Authorize')}
              </div>
            ) : null}
            <RemoteRootRenderer receiver={receiver} components={components} />
          </>
        );
    }
  }

  render(<Shell />, shell);
  void checkState();

  return {
    ready,
    status: () => status.value,
    unmount() {
      if (status.value.kind === 'unmounted') return;
      stop();
      lifetime.abort();
      setStatus({ kind: 'unmounted' });
      status.value = { kind: 'unmounted' };
      settleReady?.reject(new BootError('unmounted', 'Unmounted'));
      render(null, shell);
      shell.remove();
      frames.remove();
    },
  };
}
