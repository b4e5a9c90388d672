/**
 * Step 6: the side's access token from the person's authorization (the host's own grant for a service call, the
 * integrator's for an integrator call), refreshed ahead of expiry by the refresh engine (tokens/).
 */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import type { RequestHandler } from 'express';
import type { VaultRecord } from '../authorizations/index.ts';
import type { RefreshEngine } from '../tokens/index.ts';
import { exchangeStep, proxiedOf, type ProxiedCall } from './proxied-call.ts';

/**
 * The record as it was when `token` went upstream, for the refresh after the upstream's 401: the refresh
 * engine re-reads the row under its lock anyway (another process may have refreshed), so the proxy reads
 * and decrypts the row once per call and never again — also when the first attempt had refreshed already.
 */
function rejectedIn(record: VaultRecord, side: AddonSide, token: string): VaultRecord {
  const tokens = record[side];
  return tokens ? { ...record, [side]: { ...tokens, accessToken: token, expiresAt: undefined } } : record;
}

/** The access token for the call; with `rejected`, a fresh one after the upstream refused that one. */
export function tokenFor(
  tokens: RefreshEngine,
  call: ProxiedCall & Required<Pick<ProxiedCall, 'route'>>,
  rejected?: string,
): Promise<string> {
  const { target, route, installation } = call;
  if (rejected === undefined) return tokens.accessToken(target, route.record, installation);
  return tokens.accessToken(target, rejectedIn(route.record, target, rejected), installation, { rejected });
}

/** Sets `req.proxied.token`. */
export function attachToken(tokens: RefreshEngine): RequestHandler {
  return exchangeStep(async (req) => {
    const call = proxiedOf(req, 'route', 'exchange');
    call.token = await tokenFor(tokens, call);
  });
}
