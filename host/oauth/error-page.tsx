/** The page oidc-provider shows when it cannot send an error back to the client (bad client_id, redirect_uri…). */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { renderToString } from 'preact-render-to-string';
import { Layout } from '../pages/render.tsx';

/** `renderError` of the provider configuration: the OAuth error code and description, nothing internal. */
export async function renderProviderError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> {
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = `<!doctype html>${renderToString(
    <Layout title="Authorization failed">
      <h1>Authorization failed</h1>
      <p>
        <code>{out.error}</code>
      </p>
      {out.error_description ? <p>{out.error_description}</p> : null}
      <p>Go back to the application and try again.</p>
    </Layout>,
  )}`;
}
