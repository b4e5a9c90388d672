/**
 * A hook on the moment the provider issues an authorization code at `/oauth/authorize` (directly or
 * after an interaction): the only proof that a person allowed a client a given authorization request.
 * Listeners run after the provider built its response and before the response is sent, so whatever
 * they record is in place before the browser reaches the client's redirect_uri.
 */
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../logger.ts';

/** What a listener learns about an issued code (never the code itself). */
export interface IssuedCode {
  clientId: string;
  /** The person who allowed the request. */
  accountId: string;
  /** The request's `state`, as the client sent it. */
  state: string | undefined;
  redirectUri: string;
  /** The scopes the code carries, space-separated. */
  scope: string;
}

/** Called once per issued code; awaited before the authorization response is sent. */
export type CodeIssuedListener = (issued: IssuedCode) => Promise<void>;

const listeners = new WeakMap<Provider, CodeIssuedListener[]>();

/** Registers a listener for every authorization code `provider` issues. */
export function onAuthorizationCodeIssued(provider: Provider, listener: CodeIssuedListener): void {
  listeners.set(provider, [...(listeners.get(provider) ?? []), listener]);
}

/**
 * The provider middleware that calls the listeners. A failing listener is logged and the response
 * goes out unchanged: listeners record proof, so a missing record only makes their consumer refuse.
 */
export function codeIssuedHook(provider: Provider, logger: Logger): Middleware {
  return async (koaCtx, next) => {
    await next();
    const ctx = koaCtx as unknown as KoaContextWithOIDC;
    const route = ctx.oidc?.route;
    if (route !== 'authorization' && route !== 'resume') return;
    const code = ctx.oidc.entities.AuthorizationCode;
    if (!code || ctx.status >= 400 || !code.clientId || !code.accountId) return;
    const state = ctx.oidc.params?.state;
    const issued: IssuedCode = {
      clientId: code.clientId,
      accountId: code.accountId,
      state: typeof state === 'string' ? state : undefined,
      redirectUri: code.redirectUri ?? '',
      scope: code.scope ?? '',
    };
    for (const listener of listeners.get(provider) ?? []) {
      try {
        await listener(issued);
      } catch (error) {
        const err = error as Error;
        logger.error(
          { err: { name: err.name, message: err.message, stack: err.stack }, clientId: issued.clientId },
          'authorization code listener failed',
        );
      }
    }
  };
}
