/**
 * The handshake popup's own pages: the final page (tells the opener and closes), the declined pages
 * (the person chose Deny: tell the opener on which side, and close) and the failure pages (say what went
 * wrong and offer a restart; they stay open). The script is the only one a host page carries, allowed by
 * a per-response nonce. The message is the protocol's `HandshakeReportMessage` (addon-sdk/protocol).
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { CSRF_FORM_FIELD, type HandshakeReportMessage, type HandshakeSide } from '@addon-kit/sdk/protocol';
import { Layout, MessageBody, pageSecurityPolicy, platformNameOf, renderPage, requestViewer } from '../pages/render.tsx';
import type { AuthorizationState } from './authorizations/index.ts';

function send(res: Response, status: number, body: string, nonce?: string): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', `${pageSecurityPolicy(["'none'"])}${nonce ? `; script-src 'nonce-${nonce}'` : ''}`)
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', 'no-referrer')
    .send(body);
}

/** Script posting `message` to the opener — only to the host's own origin — then closing unless it `failed`. */
function notifyScript(message: HandshakeReportMessage, hostOrigin: string): string {
  const close = message.outcome !== 'failed';
  // JSON inside a script element: escape `<` so no `</script>` can end it early.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  return `if (window.opener) { window.opener.postMessage(${json(message)}, ${json(hostOrigin)}); }${close ? ' window.close();' : ''}`;
}

/** Step 6's last page: the add-on is ready. */
export function sendHandshakeDone(res: Response, hostOrigin: string, installationId: string): void {
  const nonce = randomBytes(16).toString('base64');
  const html = renderPage(
    <Layout title="Add-on authorized" viewer={requestViewer(res)} nav={false} width="narrow">
      <MessageBody status={200} title="Add-on authorized" message="The add-on is ready. You can close this window." />
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: notifyScript({ type: 'addon-kit:handshake', installationId, outcome: 'authorized', state: 'ready' }, hostOrigin) }} />
    </Layout>,
    platformNameOf(res),
  );
  send(res, 200, html, nonce);
}

/**
 * A step refused or declined: what happened, and a button that starts the handshake over (the start's form
 * POST with the session's CSRF token) when the installation is known and starting again can help
 * (`restartable`, default true); the opener is told too, and a declined page closes itself.
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
    /** The person chose Deny (not an error of a step). */
    declined?: boolean;
    side: HandshakeSide;
    /** False when starting again cannot help (the organization refuses the person). */
    restartable?: boolean;
    /** The session's CSRF token for the restart form; no restart button without it. */
    csrfToken?: string;
  },
): void {
  const nonce = failure.installationId && failure.state ? randomBytes(16).toString('base64') : undefined;
  const restartable = failure.restartable !== false;
  const restart = failure.installationId && restartable && failure.csrfToken ? `/addons/installations/${failure.installationId}/authorize` : undefined;
  const closing = restartable ? 'Close this window and start again from the add-on.' : 'You can close this window.';
  const html = renderPage(
    <Layout title={failure.title} viewer={requestViewer(res)} nav={false} width="narrow">
      <MessageBody status={failure.declined ? 200 : failure.status} title={failure.title} message={failure.message} />
      {restart ? (
        <form method="post" action={restart} data-error-code={failure.code}>
          <input type="hidden" name={CSRF_FORM_FIELD} value={failure.csrfToken} />
          <button type="submit" class="ak-button ak-button--primary">
            Start the authorization again
          </button>
        </form>
      ) : (
        <p data-error-code={failure.code}>{closing}</p>
      )}
      {nonce ? (
        <script
          nonce={nonce}
          dangerouslySetInnerHTML={{
            __html: notifyScript(
              {
                type: 'addon-kit:handshake',
                installationId: failure.installationId!,
                outcome: failure.declined ? 'declined' : 'failed',
                side: failure.side,
                state: failure.state!,
                error: failure.code,
              },
              failure.hostOrigin,
            ),
          }}
        />
      ) : null}
    </Layout>,
    platformNameOf(res),
  );
  send(res, failure.status, html, nonce);
}
