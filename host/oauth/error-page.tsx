/** The page oidc-provider shows when it cannot send an error back to the client (bad client_id, redirect_uri…). */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { Layout, MessageBody, PAGE_POLICY, renderPage } from '../pages/render.tsx';

/**
 * `renderError` of the provider configuration: the OAuth error code and description, nothing internal, in the
 * platform's page frame.
 */
export function providerErrorRenderer(platformName: string) {
  return async (ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.body = renderPage(
      <Layout title="Authorization failed" width="narrow">
        <MessageBody
          status={ctx.status}
          title="Authorization failed"
          message={
            <>
              {out.error_description ?? 'The request could not be processed.'} (<code>{out.error}</code>)
            </>
          }
        />
        <p>Go back to the application and try again.</p>
      </Layout>,
      platformName,
    );
  };
}
