/**
 * Every answer of oidc-provider is kept out of frames and sends no referrer: the pages it renders itself — above
 * all the `form_post` response page, which holds a live authorization code and posts it to the client — can be
 * neither framed (clickjacking) nor leak their URL, and that page's one inline script runs by its hash only
 * (oidc-provider adds the hash to a `script-src` it finds). The provider's error page sets its own policy over it.
 * @see https://openid.net/specs/oauth-v2-form-post-response-mode-1_0.html §5 (Security Considerations)
 */
import type { Middleware } from 'koa';

/** The policy of the provider's own pages; `script-src` starts empty and receives the form_post script's hash. */
export const PROVIDER_PAGE_POLICY = "default-src 'none'; script-src; frame-ancestors 'none'; base-uri 'none'";

/** The oidc-provider (koa) middleware setting the headers before the provider answers. */
export function frameAndReferrerPolicy(): Middleware {
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', PROVIDER_PAGE_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    await next();
  };
}
