/**
 * The handshake popup's own pages: the final page (tells the opener and closes) and the failure
 * pages (say what went wrong and offer a restart). The script is the only one a host page carries,
 * allowed by a per-response nonce.
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { renderToString } from 'preact-render-to-string';
import { Layout } from '../pages/render.tsx';
import type { AuthorizationState } from './token-vault.ts';

/** The message the popup posts to `window.opener` (SDK host side listens for it). */
export interface HandshakeMessage {
  type: 'addon-kit:handshake';
  installationId: string;
  state: AuthorizationState;
  /** Present when the handshake stopped: a stable code. */
  error?: string;
}

function send(res: Response, status: number, body: string, nonce?: string): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; ${nonce ? `script-src 'nonce-${nonce}'; ` : ''}frame-ancestors 'none'; base-uri 'none'; form-action 'none'`)
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', 'no-referrer')
    .send(`<!doctype html>${body}`);
}

/** Script posting `message` to the opener — only to the host's own origin — then closing (success only). */
function notifyScript(message: HandshakeMessage, hostOrigin: string, close: boolean): string {
  // JSON inside a script element: escape `<` so no `</script>` can end it early.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  return `if (window.opener) { window.opener.postMessage(${json(message)}, ${json(hostOrigin)}); }${close ? ' window.close();' : ''}`;
}

/** Step 6's last page: the add-on is ready. */
export function sendHandshakeDone(res: Response, hostOrigin: string, installationId: string): void {
  const nonce = randomBytes(16).toString('base64');
  const html = renderToString(
    <Layout title="Add-on authorized">
      <h1>Add-on authorized</h1>
      <p>You can close this window.</p>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: notifyScript({ type: 'addon-kit:handshake', installationId, state: 'ready' }, hostOrigin, true) }} />
    </Layout>,
  );
  send(res, 200, html, nonce);
}

/**
 * A step refused: what happened, and a link that starts the handshake over when the installation is
 * known and starting again can help (`restartable`, default true).
 */
export function sendHandshakeFailure(
  res: Response,
  failure: {
    status: number;
    code: string;
    title: string;
    message: string;
    installationId?: string;
    state?: AuthorizationState;
    hostOrigin: string;
    restartable?: boolean;
  },
): void {
  const nonce = failure.installationId && failure.state ? randomBytes(16).toString('base64') : undefined;
  const restartable = failure.restartable !== false;
  const restart = failure.installationId && restartable ? `/addons/installations/${failure.installationId}/authorize` : undefined;
  const closing = restartable ? 'Close this window and start again from the add-on.' : 'You can close this window.';
  const html = renderToString(
    <Layout title={failure.title}>
      <h1>{failure.title}</h1>
      <p>{failure.message}</p>
      <p data-error-code={failure.code}>{restart ? <a href={restart}>Start the authorization again</a> : closing}</p>
      {nonce ? (
        <script
          nonce={nonce}
          dangerouslySetInnerHTML={{
            __html: notifyScript({ type: 'addon-kit:handshake', installationId: failure.installationId!, state: failure.state!, error: failure.code }, failure.hostOrigin, false),
          }}
        />
      ) : null}
    </Layout>,
  );
  send(res, failure.status, html, nonce);
}
