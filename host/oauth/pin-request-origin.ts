/**
 * oidc-provider (a Koa app) builds every URL it emits — discovery endpoints, the interaction and resume
 * redirects, cookie security — from the request's Host and, behind a proxy, X-Forwarded-* headers. The
 * host's public address is its configured base URL, never what a client claims: before the provider
 * sees a request, these headers are set to the base URL's host and scheme (and the client address to
 * the one Express resolved under the host's own `trust proxy` setting).
 */
import type { RequestHandler } from 'express';
import type Provider from 'oidc-provider';

/** Makes the provider read its origin from forwarded headers, and sets those from `baseUrl` on every request. */
export function pinRequestOrigin(provider: Provider, baseUrl: string): RequestHandler {
  const base = new URL(baseUrl);
  const proto = base.protocol.replace(/:$/, '');
  // Koa reads X-Forwarded-Host/-Proto/-For only with `proxy`; their values are ours, set below.
  provider.proxy = true;
  return (req, _res, next) => {
    req.headers.host = base.host;
    req.headers['x-forwarded-host'] = base.host;
    req.headers['x-forwarded-proto'] = proto;
    req.headers['x-forwarded-for'] = req.ip ?? req.socket.remoteAddress ?? '';
    delete req.headers.forwarded;
    next();
  };
}
