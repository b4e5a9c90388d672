/**
 * Keep-alive connections toward upstreams (integrator APIs, integrator token endpoints), so a proxied
 * call does not pay a new TCP (and TLS) connection and a DNS lookup each time. node:http(s) agents pool
 * sockets per origin; every new socket goes through the checked lookup, so a pooled socket was checked
 * when it connected. Strict and permissive connections never share a socket: one opened for a
 * development integrator (private addresses allowed) is never reused for a call that must stay public.
 */
import http from 'node:http';
import https from 'node:https';
import { createCheckedLookups, type CheckedLookupOptions } from './checked-lookup.ts';

/** Options of the pool; tests pass their own DNS and clock. */
export interface UpstreamPoolOptions extends CheckedLookupOptions {
  /** Milliseconds an idle socket is kept (a server's shorter `Keep-Alive: timeout` hint wins). */
  idleMs?: number;
  /** Idle sockets kept per origin. */
  maxIdlePerOrigin?: number;
}

/** The agents of the upstream connections. */
export interface UpstreamPool {
  /** The agent for a URL's scheme under a policy (private and loopback addresses allowed or not). */
  agentFor(url: URL, allowNonPublic: boolean): http.Agent;
  /** Closes every socket of the pool. */
  destroy(): void;
}

/** Creates a pool: four agents (http and https, strict and permissive), each pooling per origin. */
export function createUpstreamPool(options: UpstreamPoolOptions = {}): UpstreamPool {
  const lookups = createCheckedLookups(options);
  const common = {
    keepAlive: true,
    timeout: options.idleMs ?? 4000,
    maxFreeSockets: options.maxIdlePerOrigin ?? 64,
    scheduling: 'lifo' as const,
  };
  const agents = {
    'http:': [
      new http.Agent({ ...common, lookup: lookups.lookupFor(false) }),
      new http.Agent({ ...common, lookup: lookups.lookupFor(true) }),
    ],
    'https:': [
      new https.Agent({ ...common, lookup: lookups.lookupFor(false) }),
      new https.Agent({ ...common, lookup: lookups.lookupFor(true) }),
    ],
  };
  return {
    agentFor(url, allowNonPublic) {
      const pair = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
      return pair[allowNonPublic ? 1 : 0]!;
    },
    destroy() {
      for (const agent of [...agents['http:'], ...agents['https:']]) agent.destroy();
    },
  };
}

/** The process's pool (idle sockets do not keep the process alive). */
export const sharedUpstreamPool: UpstreamPool = createUpstreamPool();
