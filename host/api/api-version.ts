/**
 * Version selection for the developer-account API. A client names the version it was written against
 * in the `X-API-Version` request header (a date such as 2025-09-30); without the header it gets the
 * latest. A version this host does not serve is refused with 400 before any endpoint runs (after authentication), and
 * every response says which version answered in its own `X-API-Version` header.
 */
import type { RequestHandler } from 'express';
import { HostError } from '../errors.ts';

/** Versions served, oldest first; the last is the latest. */
export const API_VERSIONS = ['2025-09-30'] as const;
/** A version this host serves. */
export type ApiVersion = (typeof API_VERSIONS)[number];
/** What a request without `X-API-Version` gets. */
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;
/** The platform release the latest version describes (the OpenAPI vendor extension). */
export const PLATFORM_RELEASE = '16.4.2';
/** Request and response header naming the version. */
export const API_VERSION_HEADER = 'X-API-Version';

/** Whether `value` names a version this host serves. */
export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

/** 400 for a version this host does not serve; `meta.supported_versions` lists the ones it does. */
export class UnsupportedVersionError extends HostError {
  constructor(requested: string) {
    super({
      status: 400,
      code: 'unsupported_version',
      title: 'Invalid Version',
      detail: `API version ${JSON.stringify(requested)} is not supported; send one of ${API_VERSIONS.join(', ')} in ${API_VERSION_HEADER}, or no ${API_VERSION_HEADER} for the latest`,
      meta: { supported_versions: [...API_VERSIONS] },
    });
  }
}

/** Checks `X-API-Version` and labels the response with the version that answers. */
export const selectApiVersion: RequestHandler = (req, res, next) => {
  const requested = req.get(API_VERSION_HEADER);
  res.vary(API_VERSION_HEADER);
  if (requested !== undefined && !isApiVersion(requested.trim())) throw new UnsupportedVersionError(requested);
  res.set(API_VERSION_HEADER, requested?.trim() || LATEST_API_VERSION);
  next();
};
