/**
 * The handshake hooks of the host (contract in protocol/README.md): read the installation's state, and
 * run the Authorize popup, which reports back with a postMessage from the host's own origin.
 */
import { parseHandshakeReport, type HandshakeReportMessage, type HandshakeState } from '../protocol/messages.ts';
import { installationPath } from '../protocol/proxy.ts';

export type { HandshakeState };

const STATES = new Set<HandshakeState>([
  'uninitialized',
  'service_authorized',
  'integrator_pending',
  'ready',
  'reauthorization_required',
]);

/** GET …/state; a failure reads as `uninitialized` so the person can (re)start the handshake. */
export async function fetchHandshakeState(
  hostBase: string,
  installationId: string,
  signal?: AbortSignal,
): Promise<HandshakeState> {
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

/** How an Authorize popup ended: its final report (authorized or declined), or closed / blocked without one. */
export type PopupResult = HandshakeReportMessage | 'closed' | 'blocked';

/**
 * Opens the Authorize popup at the host's start page, which posts the start's form with the session's CSRF
 * token only when its opener is a page of the host's own origin (protocol/README.md §3), and resolves with its final report, or when it is closed without one. A report
 * only counts when it comes from that popup window and the host's origin; a `failed` one does not end the
 * wait (the popup stays open on its failure page, from which the person may start again). The caller
 * re-reads the state from the server anyway.
 */
export function runAuthorizePopup(hostBase: string, installationId: string, signal: AbortSignal): Promise<PopupResult> {
  const popup = window.open(
    installationPath(hostBase, installationId, 'authorize'),
    `addon-kit-authorize-${installationId}`,
    'popup,width=600,height=720',
  );
  if (!popup) return Promise.resolve('blocked');
  const hostOrigin = new URL(hostBase, location.href).origin;
  return new Promise((resolve) => {
    const finish = (result: PopupResult) => {
      window.removeEventListener('message', onMessage);
      clearInterval(closedPoll);
      resolve(result);
    };
    function onMessage(event: MessageEvent) {
      if (event.source !== popup || event.origin !== hostOrigin) return;
      const report = parseHandshakeReport(event.data);
      if (report && report.installationId === installationId && report.outcome !== 'failed') finish(report);
    }
    window.addEventListener('message', onMessage);
    // A popup closed without reporting (the person gave up) must not leave the button stuck. The popup closes
    // itself right after posting its report, so a close is acted on only after the report had time to arrive.
    const closedPoll = setInterval(() => {
      if (!popup.closed) return;
      clearInterval(closedPoll);
      setTimeout(() => finish('closed'), 300);
    }, 500);
    signal.addEventListener(
      'abort',
      () => {
        popup.close();
        finish('closed');
      },
      { once: true },
    );
  });
}
