/**
 * What the steps of one proxied call hand each other (kept on the request as `req.proxied`), and what the
 * proxy needs from the runtime. Each step reads what the steps before it wrote; a step that finds its input
 * missing is a wiring fault, not a request's.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import type { FetchTarget } from '@addon-kit/sdk/protocol';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database, Queryable } from '../../db/database.ts';
import type { HostMetrics } from '../../metrics/index.ts';
import type { TokenVault, VaultRecord } from '../authorizations/index.ts';
import type { Installation } from '../registry/index.ts';
import type { RefreshEngine } from '../tokens/index.ts';
import type { Loopback } from '../upstream/index.ts';
import type { CheckedFetchEnvelope } from './fetch-envelope.ts';
import type { ProxyCallCache } from './proxy-call-cache.ts';

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

/** What the proxy's steps need. */
export interface FetchProxyDeps {
  db: Queryable;
  vault: TokenVault;
  /** What proxied calls were allowed on, kept between calls where that is safe (proxy-call-cache.ts). */
  proxyCalls: ProxyCallCache;
  /** Both grants' access tokens, refreshed when due. */
  tokens: RefreshEngine;
  loopback: Loopback;
  baseUrl: string;
  limits: FetchProxyLimits;
  /** The operator's setting: development add-ons may reach private addresses (config `allowsPrivateAddresses`). */
  allowPrivateAddresses: boolean;
  /** Where each call is counted (host/metrics). */
  metrics: HostMetrics;
  /** Records the `excluded` lifecycle event (checkAccess) in the transaction that marks the authorization. */
  lifecycle: { transaction: Database['transaction']; box: SecretBox };
}

/** Where the call goes and as whom (checkPolicy). */
export interface ProxyRoute {
  /** The URL the add-on named, as the policy accepted it (the relayed response's `url`). */
  url: URL;
  /** Where the request is actually sent (the loopback port for service calls). */
  target: URL;
  headers: [string, string][];
  allowNonPublic: boolean;
  /** The person's authorization, read with the installation (its tokens opened once per call). */
  record: VaultRecord;
}

/** The request body toward the upstream (limitBody). */
export interface ProxyBody {
  stream: Readable | undefined;
  /** The whole body once it has ended, when it stayed under the replay limit. */
  replay(): Buffer | undefined;
}

/** One proxied call as its steps fill it in. */
export interface ProxiedCall {
  target: FetchTarget;
  installation: Installation;
  envelope: CheckedFetchEnvelope;
  route?: ProxyRoute;
  /** The deadline of the whole exchange, and the abort of the upstream request when the browser leaves. */
  exchange?: { deadline: NodeJS.Timeout; signal: AbortSignal; body: ProxyBody };
  /** The access token sent with the last attempt. */
  token?: string;
  upstream?: IncomingMessage;
  /** Seconds from sending the first attempt to its response head (metrics). */
  upstreamSeconds?: number;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The proxied call its steps are building (readEnvelope on). */
      proxied?: ProxiedCall;
    }
  }
}

/** The call, with what the named step wrote (a missing one is a fault in the route's list of steps). */
export function proxiedOf<K extends keyof ProxiedCall>(
  req: Request,
  ...needed: K[]
): ProxiedCall & Required<Pick<ProxiedCall, K>> {
  const call = req.proxied;
  if (!call || needed.some((key) => call[key] === undefined))
    throw new Error(`a proxy step ran before the step that sets ${needed.join(', ')}`);
  return call as ProxiedCall & Required<Pick<ProxiedCall, K>>;
}

/**
 * A step of the exchange (after limitBody): a refusal clears the exchange's deadline at once, so a failed call
 * never holds a stopping process for the deadline's length. The last step (`ends`) answers and calls no other.
 */
export function exchangeStep(
  step: (req: Request, res: Response) => Promise<void>,
  options: { ends?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    try {
      await step(req, res);
    } catch (error) {
      clearTimeout(req.proxied?.exchange?.deadline);
      throw error;
    }
    if (!options.ends) next();
  };
}
