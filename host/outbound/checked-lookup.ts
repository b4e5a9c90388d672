/**
 * The `lookup` hook of every upstream connection (fetch proxy and integrator token requests): it
 * resolves the name, refuses non-public addresses when they are not allowed, and hands the checked
 * addresses straight to the socket — so the address checked is the address connected to, and a name
 * that answers differently a moment later (DNS rebinding) gains nothing. Answers are kept for a short
 * time so a burst of new connections does not ask DNS each time; every connection checks its answer.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isNonPublicAddress } from './address-policy.ts';

/** Resolves a name to all its addresses (`dns.lookup` with `all: true` unless a test passes its own DNS). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** The signature `net.connect` calls its `lookup` option with. */
export type LookupFunction = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** A connection refused because its name resolves to an address the policy forbids. */
export class RefusedAddressError extends Error {
  readonly code = 'ADDON_REFUSED_ADDRESS';
  constructor(hostname: string) {
    super(`${hostname} resolves to an address that is not public`);
  }
}

/** What the lookups share: the resolver and the short-lived answers. */
export interface CheckedLookupOptions {
  resolve?: Resolve;
  /** Milliseconds an answer is reused for new connections before the name is resolved again. */
  cacheMs?: number;
  /** Milliseconds since the epoch (tests pass a controllable clock). */
  now?: () => number;
  /** Names kept at most (the oldest answer goes first). */
  maxNames?: number;
}

/** A source of checked `lookup` functions, one per policy, sharing one answer cache. */
export interface CheckedLookups {
  /** The `lookup` hook for connections that may (true) or may not (false) reach non-public addresses. */
  lookupFor(allowNonPublic: boolean): LookupFunction;
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** Creates the lookups with their answer cache. */
export function createCheckedLookups(options: CheckedLookupOptions = {}): CheckedLookups {
  const resolve = options.resolve ?? systemResolve;
  const cacheMs = options.cacheMs ?? 10_000;
  const now = options.now ?? Date.now;
  const maxNames = options.maxNames ?? 1000;
  const answers = new Map<string, { addresses: Promise<LookupAddress[]>; expiresAt: number }>();

  function addressesOf(hostname: string): Promise<LookupAddress[]> {
    const key = hostname.toLowerCase();
    const kept = answers.get(key);
    if (kept && kept.expiresAt > now()) return kept.addresses;
    answers.delete(key);
    const addresses = resolve(hostname);
    answers.set(key, { addresses, expiresAt: now() + cacheMs });
    if (answers.size > maxNames) answers.delete(answers.keys().next().value!);
    // A failed lookup is not kept: the next connection asks again.
    addresses.catch(() => {
      if (answers.get(key)?.addresses === addresses) answers.delete(key);
    });
    return addresses;
  }

  function lookupFor(allowNonPublic: boolean): LookupFunction {
    return (hostname, lookupOptions, callback) => {
      const family = Number(String(lookupOptions.family ?? 0).replace(/^IPv/, '')) || 0;
      addressesOf(hostname).then(
        (all) => {
          const addresses = family ? all.filter((a) => a.family === family) : all;
          if (addresses.length === 0) {
            const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
            error.code = 'ENOTFOUND';
            return callback(error, []);
          }
          // One forbidden answer refuses the name: which address the socket would pick is not ours to guess.
          // An answer the policy cannot read (a zone id it does not parse) is refused like a forbidden one.
          let refused: boolean;
          try {
            refused = !allowNonPublic && addresses.some((a) => isNonPublicAddress(a.address));
          } catch {
            refused = true;
          }
          if (refused) return callback(new RefusedAddressError(hostname), []);
          if (lookupOptions.all) return callback(null, addresses);
          callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
  }

  return { lookupFor };
}
