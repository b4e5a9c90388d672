/**
 * The handshake popup's own pages: the final page (tells the opener and closes), the declined pages
 * (the person chose Deny: tell the opener on which side, and close) and the failure pages (say what went
 * wrong and offer a restart; they stay open). The script is the only one a host page carries, allowed by
 * a per-response nonce. The message is the protocol's `HandshakeReportMessage` (addon-sdk/protocol).
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { CSRF_FORM_FIELD, type HandshakeReportMessage, type HandshakeSide } from '@addon-kit/sdk/protocol';
import {
  Layout,
  MessageBody,
  pageSecurityPolicy,
  platformNameOf,
  renderPage,
  requestViewer,
} from '../../pages/render.tsx';
import type { AuthorizationState } from '../authorizations/index.ts';

function send(
  res: Response,
  status: number,
  body: string,
  nonce?: string,
  policy = pageSecurityPolicy(["'none'"]),
  referrer = 'no-referrer',
): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', `${policy}${nonce ? `; script-src 'nonce-${nonce}'` : ''}`)
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', referrer)
    .send(body);
}

/** Script posting `message` to the opener — only to the host's own origin — then closing unless it `failed`. */
function notifyScript(message: HandshakeReportMessage, hostOrigin: string): string {
  const close = message.outcome !== 'failed';
  // JSON inside a script element: escape `<` so no `</script>` can end it early.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  return `if (window.opener) { window.opener.postMessage(${json(message)}, ${json(hostOrigin)}); }${close ? ' window.close();' : ''}`;
}

/**
 * Step 0's page (`GET …/installations/{id}/authorize`, where the Authorize button opens the popup): it starts
 * nothing itself. It holds the start's form with the session's CSRF token and posts it only when the page
 * that opened the popup is of the host's own origin — reading `opener.location` of another origin throws —
 * so a link or popup from another site shows this page and no more (the token cannot be read across origins,
 * and the page cannot be framed). Its CSP has no `form-action`: the POST's redirects go on to the host's
 * /oauth/authorize and from there to the integrator's redirect_url.
 */
export function sendHandshakeStart(res: Response, start: { action: string; csrfToken: string }): void {
  const nonce = randomBytes(16).toString('base64');
  const script =
    "try { if (window.opener && window.opener.location.origin === location.origin) document.getElementById('start').submit(); } catch (e) {}";
  const html = renderPage(
    <Layout title="Start from the add-on" viewer={requestViewer(res)} nav={false} width="narrow">
      <MessageBody
        status={200}
        title="Start from the add-on"
        message="An add-on authorization starts only from the Authorize button of the add-on. If this window stays open, close it and click Authorize there."
      />
      <form id="start" method="post" action={start.action} hidden>
        <input type="hidden" name={CSRF_FORM_FIELD} value={start.csrfToken} />
      </form>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: script }} />
    </Layout>,
    platformNameOf(res),
  );
  // same-origin, not no-referrer: under no-referrer the form's POST would carry `Origin: null`, which the CSRF check refuses.
  send(
    res,
    200,
    html,
    nonce,
    "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    'same-origin',
  );
}

/** Step 6's last page: the add-on is ready. */
export function sendHandshakeDone(res: Response, hostOrigin: string, installationId: string): void {
  const nonce = randomBytes(16).toString('base64');
  const html = renderPage(
    <Layout title="Add-on authorized" viewer={requestViewer(res)} nav={false} width="narrow">
      <MessageBody status={200} title="Add-on authorized" message="The add-on is ready. You can close this window." />
      <script
        nonce={nonce}
        dangerouslySetInnerHTML={{
          __html: notifyScript(
            { type: 'addon-kit:handshake', installationId, outcome: 'authorized', state: 'ready' },
            hostOrigin,
          ),
        }}
      />
    </Layout>,
    platformNameOf(res),
  );
  send(res, 200, html, nonce);
}

/**
 * A step refused or declined: what happened, and a link that starts the handshake over (step 0's page, which
 * posts the start's form in this popup) when the installation is known and starting again can help
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
  },
): void {
  const nonce = failure.installationId && failure.state ? randomBytes(16).toString('base64') : undefined;
  const restartable = failure.restartable !== false;
  const restart =
    failure.installationId && restartable ? `/addons/installations/${failure.installationId}/authorize` : undefined;
  const closing = restartable ? 'Close this window and start again from the add-on.' : 'You can close this window.';
  const html = renderPage(
    <Layout title={failure.title} viewer={requestViewer(res)} nav={false} width="narrow">
      <MessageBody status={failure.declined ? 200 : failure.status} title={failure.title} message={failure.message} />
      <p data-error-code={failure.code}>
        {restart ? (
          <a class="ak-button ak-button--primary" href={restart}>
            Start the authorization again
          </a>
        ) : (
          closing
        )}
      </p>
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
