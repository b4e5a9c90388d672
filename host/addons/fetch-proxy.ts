/**
 * `POST /addons/installations/{id}/fetch/{service|integrator}`: the server half of authenticatedFetch
 * and authenticatedIntegratorFetch. The browser proves the person (session cookie, CSRF header, exact
 * Origin) and says what to call (FETCH_HEADER); the host checks it against the add-on's policy,
 * attaches the token it keeps, and streams the upstream's answer back (UPSTREAM_HEADER + raw body); the
 * contract is `@addon-kit/sdk/protocol` (proxy.ts).
 * Tokens never reach the browser. A 401 from upstream → one refresh and one retry, when the request
 * body was small enough to keep for a replay.
 */
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import type { Queryable } from '../db/database.ts';
import type { PersonRecord } from '../auth/person.ts';
import { HandshakeRequiredError, PolicyError, UpstreamError } from './addon-error.ts';
import { FETCH_HEADER, UPSTREAM_HEADER } from '@addon-kit/sdk/protocol';
import {
  declaredLength,
  encodeUpstream,
  headerPairs,
  parseFetchEnvelope,
  stripHeaders,
  type CheckedFetchEnvelope,
} from './fetch-envelope.ts';
import { findInstallation, type Installation } from './installations.ts';
import { checkIntegratorCall } from './integrator-policy.ts';
import type { Loopback } from './loopback.ts';
import { checkServiceCall } from './service-policy.ts';
import { installationNotFound, proxyCallOf } from './proxy-call.ts';
import { addonPersonOf } from './session-gate.ts';
import type { TokenVault, VaultRecord } from './token-vault.ts';
import type { RefreshEngine } from './tokens/refresh-engine.ts';
import { sendUpstream } from './upstream-request.ts';

/** Size and time limits of proxied calls. */
export interface FetchProxyLimits {
  /** Largest request body passed upstream. */
  maxRequestBytes: number;
  /** Largest request body kept in memory so a 401 can be retried. */
  replayBytes: number;
  /** Largest response body streamed back. */
  maxResponseBytes: number;
  /** Milliseconds until the upstream's response head. */
  headersTimeoutMs: number;
  /** Milliseconds for the whole exchange, body included. */
  totalTimeoutMs: number;
}

/** What the proxy handler needs. */
export interface FetchProxyDeps {
  db: Queryable;
  vault: TokenVault;
  /** Both grants' access tokens, refreshed when due. */
  tokens: RefreshEngine;
  loopback: Loopback;
  baseUrl: string;
  limits: FetchProxyLimits;
  /** The operator's setting: development add-ons may reach private addresses (config `allowsPrivateAddresses`). */
  allowPrivateAddresses: boolean;
}

/** The installation of the person's organization, or 404 (another organization's id looks unknown). */
export async function installationOf(db: Queryable, id: string, person: PersonRecord): Promise<Installation> {
  const installation = await findInstallation(db, id, person.organization_id);
  if (!installation) throw installationNotFound();
  return installation;
}

/** The request body as a size-limited stream that keeps a copy while it stays under the replay limit. */
function bodyOf(
  req: Request,
  method: string,
  limits: FetchProxyLimits,
): { stream: Readable | undefined; replay(): Buffer | undefined } {
  if (method === 'GET' || method === 'HEAD') {
    req.resume();
    return { stream: undefined, replay: () => Buffer.alloc(0) };
  }
  const length = declaredLength(req.headers);
  if (length !== undefined && length > limits.maxRequestBytes)
    throw new PolicyError('body_too_large', `The request body exceeds ${limits.maxRequestBytes} bytes`);
  const kept: Buffer[] = [];
  let total = 0;
  let ended = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > limits.maxRequestBytes)
        return callback(new PolicyError('body_too_large', `The request body exceeds ${limits.maxRequestBytes} bytes`));
      if (total <= limits.replayBytes) kept.push(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      ended = true;
      callback();
    },
  });
  req.on('error', (error) => counter.destroy(error));
  req.pipe(counter);
  return { stream: counter, replay: () => (ended && total <= limits.replayBytes ? Buffer.concat(kept) : undefined) };
}

/** Streams an upstream response back in the contract's success shape, within the limits. */
function relay(res: Response, upstream: IncomingMessage, publicUrl: URL, limits: FetchProxyLimits): void {
  // The browser left while the upstream answered: 'close' has fired already, so nothing below would free the upstream.
  if (res.closed) {
    upstream.destroy();
    return;
  }
  const location = upstream.headers.location;
  if (location && upstream.statusCode && upstream.statusCode >= 300 && upstream.statusCode < 400) {
    let target: URL | undefined;
    try {
      target = new URL(location, publicUrl);
    } catch {
      target = undefined;
    }
    if (!target || target.origin !== publicUrl.origin) {
      upstream.destroy();
      throw new UpstreamError(
        'upstream_redirect',
        'The upstream redirected to another origin; redirects are not followed',
      );
    }
  }
  const declared = Number(upstream.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxResponseBytes) {
    upstream.destroy();
    throw new UpstreamError(
      'upstream_response_too_large',
      `The upstream response exceeds ${limits.maxResponseBytes} bytes`,
    );
  }
  // Bytes are relayed decoded: the browser never sees this response's Content-Encoding (the contract).
  const encoding = String(upstream.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const headers = stripHeaders(headerPairs(upstream.rawHeaders)).filter(
    ([name]) => !(decoder && name === 'content-encoding'),
  );
  res.status(200);
  res.set(
    UPSTREAM_HEADER,
    encodeUpstream(upstream.statusCode ?? 502, upstream.statusMessage ?? '', publicUrl.toString(), headers),
  );
  res.set('Content-Type', 'application/octet-stream');
  res.set('Cache-Control', 'no-store');
  res.set('X-Content-Type-Options', 'nosniff');
  const body: Readable = decoder ? upstream.pipe(decoder) : upstream;
  let total = 0;
  body.on('data', (chunk: Buffer) => {
    total += chunk.length;
    // Past the limit the 200 is already sent: cutting the connection is the only honest signal.
    if (total > limits.maxResponseBytes) {
      upstream.destroy();
      res.destroy();
    }
  });
  upstream.on('error', () => res.destroy());
  body.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  body.pipe(res);
}

interface Attempt {
  url: URL;
  /** Where the request is actually sent (the loopback port for service calls). */
  target: URL;
  headers: [string, string][];
  allowNonPublic: boolean;
  token(rejected?: string): Promise<string>;
}

async function proxy(
  req: Request,
  res: Response,
  envelope: CheckedFetchEnvelope,
  attempt: Attempt,
  limits: FetchProxyLimits,
): Promise<void> {
  // The browser may have gone while its person, installation and vault row were read: its 'close' has fired
  // already, so a deadline set now would never be cleared (and would hold a stopping process for its full length).
  if (res.closed) return;
  const deadline = setTimeout(() => {
    req.destroy();
    res.destroy();
  }, limits.totalTimeoutMs);
  // Whenever the browser's connection ends — before the upstream answered, while relaying, or after — the deadline
  // goes, and an unfinished exchange aborts the upstream request (the add-on aborted its fetch, or went away).
  const abort = new AbortController();
  res.once('close', () => {
    clearTimeout(deadline);
    if (!res.writableFinished) abort.abort();
  });
  try {
    const body = bodyOf(req, envelope.method, limits);
    const send = (token: string, payload: Readable | Buffer | undefined) =>
      sendUpstream({
        signal: abort.signal,
        url: attempt.target,
        method: envelope.method,
        headers: [...attempt.headers, ['authorization', `Bearer ${token}`]],
        body: payload,
        allowNonPublic: attempt.allowNonPublic,
        timeoutMs: limits.headersTimeoutMs,
      });
    let token = await attempt.token();
    let upstream = await send(token, body.stream);
    if (upstream.statusCode === 401) {
      // Let the request finish streaming so we know whether it can be replayed.
      await new Promise<void>((resolve) =>
        body.stream && !body.stream.readableEnded
          ? body.stream.once('end', resolve).once('close', resolve).resume()
          : resolve(),
      );
      const replay = body.replay();
      if (replay !== undefined) {
        upstream.resume();
        token = await attempt.token(token);
        upstream = await send(token, envelope.method === 'GET' || envelope.method === 'HEAD' ? undefined : replay);
      } else {
        // The body is gone: relay this 401, but refresh now so the add-on's own retry can succeed.
        await attempt.token(token).catch(() => undefined);
      }
    }
    relay(res, upstream, attempt.url, limits);
  } catch (error) {
    clearTimeout(deadline);
    throw error;
  }
}

/** Common request headers toward any upstream: no credentials, no hop-by-hop, identity encoding (bytes are relayed raw). */
function outgoingHeaders(envelope: CheckedFetchEnvelope, extra: [string, string][]): [string, string][] {
  const kept = stripHeaders(envelope.headers).filter(
    ([name]) => !['accept-encoding', 'user-agent', 'origin', 'referer'].includes(name.toLowerCase()),
  );
  return [...kept, ['accept-encoding', 'identity'], ...extra];
}

function recordOf(record: VaultRecord | undefined, side: 'host_auth' | 'integrator_auth'): VaultRecord {
  if (!record) throw new HandshakeRequiredError(side);
  return record;
}

/**
 * The record as it was when `token` went upstream, for the refresh after the upstream's 401: the refresh
 * engine re-reads the row under its lock anyway (another process may have refreshed), so the proxy reads
 * and decrypts the row once per call and never again — also when the first attempt had refreshed already.
 */
function rejectedIn(record: VaultRecord, side: 'service' | 'integrator', token: string): VaultRecord {
  const tokens = record[side];
  return tokens ? { ...record, [side]: { ...tokens, accessToken: token, expiresAt: undefined } } : record;
}

/**
 * The handler of `POST /installations/:id/fetch/:side`, after `requireProxyCall` (the person, the installation
 * and the authorization, read in one statement: proxy-call.ts) and `requireAddonCsrf`.
 */
export function fetchProxy(deps: FetchProxyDeps): RequestHandler {
  return async (req, res) => {
    const side = req.params.side;
    if (side !== 'service' && side !== 'integrator')
      throw new PolicyError('invalid_request', 'The fetch side is service or integrator', 404);
    const { installation, record: stored } = proxyCallOf(req);
    const envelope = parseFetchEnvelope(req.get(FETCH_HEADER));
    const userAgent = `addon-kit-addon/${installation.oauthApplicationId} (installation ${installation.id})`;
    if (side === 'integrator') {
      const url = checkIntegratorCall(installation.integratorApi, envelope.method, envelope.url);
      const record = recordOf(stored, 'integrator_auth');
      await proxy(
        req,
        res,
        envelope,
        {
          url,
          target: url,
          headers: outgoingHeaders(envelope, [['user-agent', userAgent]]),
          // The operator decides, not the tenant: an environment name alone never opens private addresses.
          allowNonPublic: installation.environment === 'development' && deps.allowPrivateAddresses,
          token(rejected) {
            if (rejected === undefined) return deps.tokens.accessToken('integrator', record, installation);
            return deps.tokens.accessToken('integrator', rejectedIn(record, 'integrator', rejected), installation, {
              rejected,
            });
          },
        },
        deps.limits,
      );
      return;
    }
    const url = checkServiceCall(deps.baseUrl, installation.scopes, envelope.url);
    const record = recordOf(stored, 'host_auth');
    const target = new URL(`${url.pathname}${url.search}`, await deps.loopback.origin());
    await proxy(
      req,
      res,
      envelope,
      {
        url,
        target,
        headers: outgoingHeaders(envelope, [['user-agent', userAgent]]),
        allowNonPublic: true,
        token(rejected) {
          if (rejected === undefined) return deps.tokens.accessToken('service', record, installation);
          return deps.tokens.accessToken('service', rejectedIn(record, 'service', rejected), installation, {
            rejected,
          });
        },
      },
      deps.limits,
    );
  };
}

/** `GET /installations/:id/state`: the handshake state of the logged-in person. */
export function installationState(deps: Pick<FetchProxyDeps, 'db' | 'vault'>): RequestHandler {
  return async (req, res) => {
    const person = addonPersonOf(req);
    const installation = await installationOf(deps.db, String(req.params.id), person);
    const record = await deps.vault.find(installation.id, person.id);
    res.set('Cache-Control', 'no-store').json({ state: record?.state ?? 'uninitialized' });
  };
}
