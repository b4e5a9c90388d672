/** Recognises, after oidc-provider has answered, a token request it refused with invalid_grant. */
import type { Context } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The request's OIDC context when the token endpoint just refused it with invalid_grant; undefined otherwise. */
export function invalidGrantRefusal(koaCtx: Context): KoaContextWithOIDC['oidc'] | undefined {
  const ctx = koaCtx as unknown as KoaContextWithOIDC;
  if (ctx.oidc?.route !== 'token' || ctx.status !== 400) return undefined;
  return (ctx.body as { error?: unknown } | undefined)?.error === 'invalid_grant' ? ctx.oidc : undefined;
}
