/** Server-rendered pages: preact to an HTML string, a small shared layout, no client JavaScript. */
import type { Response } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.75rem 0 .25rem}input[type=text],input[type=email],input[type=password],input[type=url],textarea{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.4rem 1rem}.error{color:#a00}.secret{font-family:monospace;background:#f4f4f4;padding:.5rem;word-break:break-all}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}nav a{margin-right:1rem}
`;

/** The page frame every host page shares. */
export function Layout(props: { title: string; children: ComponentChildren }): VNode {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/**
 * The pages' Content-Security-Policy: no scripts, frames or foreign resources; forms post to the host
 * (`formAction` adds where a form's redirects may go on to, e.g. an OAuth client's redirect URIs: browsers
 * apply form-action to the redirects that follow a submission too).
 * @see https://www.w3.org/TR/CSP3/#directive-form-action
 */
export function pageSecurityPolicy(formAction: readonly string[] = ["'self'"]): string {
  return `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction.join(' ')}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * Sends a page. Pages never embed scripts, frames or foreign resources, and are never cached (they
 * can show one-time secrets and carry CSRF tokens).
 */
export function sendPage(res: Response, status: number, page: VNode, options: { formAction?: readonly string[] } = {}): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', pageSecurityPolicy(options.formAction))
    .set('X-Frame-Options', 'DENY')
    // Not no-referrer: browsers then send `Origin: null` on the page's own form posts, which requireCsrf refuses.
    .set('Referrer-Policy', 'same-origin')
    .send(`<!doctype html>${renderToString(page)}`);
}

/** A page with one heading and one paragraph (errors, notices). */
export function sendMessagePage(res: Response, status: number, title: string, message: string): void {
  sendPage(
    res,
    status,
    <Layout title={title}>
      <h1>{title}</h1>
      <p>{message}</p>
    </Layout>,
  );
}

/** The hidden CSRF field of every form. */
export function CsrfField(props: { token: string }): VNode {
  return <input type="hidden" name="_csrf" value={props.token} />;
}
