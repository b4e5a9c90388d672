/**
 * The handshake hooks of the host (contract in protocol/README.md): read the installation's state, and
 * run the Authorize popup, which reports back with a postMessage from the host's own origin.
 */

/** Handshake states of an installation; only `ready` lets the add-on run. */
export type HandshakeState = 'uninitialized' | 'service_authorized' | 'integrator_pending' | 'ready' | 'reauthorization_required';

const STATES = new Set<HandshakeState>(['uninitialized', 'service_authorized', 'integrator_pending', 'ready', 'reauthorization_required']);

function installationPath(hostBase: string, installationId: string, rest: string): string {
  return `${hostBase.replace(/\/$/, '')}/addons/installations/${encodeURIComponent(installationId)}/${rest}`;
}

/** GET …/state; a failure reads as `uninitialized` so the person can (re)start the handshake. */
export async function fetchHandshakeState(hostBase: string, installationId: string, signal?: AbortSignal): Promise<HandshakeState> {
  const response = await fetch(installationPath(hostBase, installationId, 'state'), {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
    cache: 'no-store',
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) return 'uninitialized';
  const body = (await response.json().catch(() => null)) as { state?: unknown } | null;
  return STATES.has(body?.state as HandshakeState) ? (body!.state as HandshakeState) : 'uninitialized';
}

/**
 * Opens the Authorize popup and resolves when it reports back (or is closed). The report only counts when it
 * comes from that popup window and the host's origin; the caller re-reads the state from the server anyway.
 */
export function runAuthorizePopup(hostBase: string, installationId: string, signal: AbortSignal): Promise<'reported' | 'closed' | 'blocked'> {
  const popup = window.open(installationPath(hostBase, installationId, 'authorize'), `addon-kit-authorize-${installationId}`, 'popup,width=600,height=720');
  if (!popup) return Promise.resolve('blocked');
  const hostOrigin = new URL(hostBase, location.href).origin;
  return new Promise((resolve) => {
    const finish = (result: 'reported' | 'closed') => {
      window.removeEventListener('message', onMessage);
      clearInterval(closedPoll);
      resolve(result);
    };
    function onMessage(event: MessageEvent) {
      if (event.source !== popup || event.origin !== hostOrigin) return;
      const data = event.data as { type?: unknown; installationId?: unknown } | null;
      if (data?.type === 'addon-kit:handshake' && String(data.installationId) === installationId) finish('reported');
    }
    window.addEventListener('message', onMessage);
    // A popup closed without reporting (the person gave up) must not leave the button stuck.
    const closedPoll = setInterval(() => {
      if (popup.closed) finish('closed');
    }, 500);
    signal.addEventListener('abort', () => {
      popup.close();
      finish('closed');
    }, { once: true });
  });
}
