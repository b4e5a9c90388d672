/**
 * Step 3: what the add-on asked for — the side (`service` or `integrator`, from the path), the installation
 * readProxyCall read (404 when the organization cannot see it) and the FETCH_HEADER envelope, checked strictly.
 */
import type { RequestHandler } from 'express';
import { FETCH_HEADER, type FetchTarget } from '@addon-kit/sdk/protocol';
import { PolicyError } from '../addon-error.ts';
import { parseFetchEnvelope } from './fetch-envelope.ts';
import { proxyCallOf } from './proxy-call.ts';

function isFetchTarget(value: unknown): value is FetchTarget {
  return value === 'service' || value === 'integrator';
}

/** Reads the side, the installation and the envelope into `req.proxied`. */
export const readEnvelope: RequestHandler = (req, _res, next) => {
  const target = req.params.side;
  if (!isFetchTarget(target)) throw new PolicyError('invalid_request', 'The fetch side is service or integrator', 404);
  const { installation } = proxyCallOf(req);
  req.proxied = { target, installation, envelope: parseFetchEnvelope(req.get(FETCH_HEADER)) };
  next();
};
