/**
 * The API rate limit, as Planning Center's API has it: per authenticated user and application (a personal
 * access token, or an OAuth application's token) `points` requests per `seconds`, and per client address
 * for requests without valid credentials. Every API response says where the caller stands
 * (`X-PCO-API-Request-Rate-Limit`, `-Period`, `-Count`); over the limit the answer is 429 with `Retry-After`
 * and the spec's error envelope. Wraps the authentication step, whose outcome picks the counter: failed
 * personal-access-token secrets and unknown Bearer tokens also count against the client-authentication throttle.
 */
import type { RequestHandler } from 'express';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { parseBasic } from '../auth/authenticate.ts';
import { TooManyRequestsError, UnauthorizedError } from '../errors.ts';
import { clientAddress } from '../http/client-address.ts';
import type { ClientAuthThrottle } from './client-auth-throttle.ts';
import { limiterKey } from './limiter-store.ts';

/** Response headers of the rate limit. */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-PCO-API-Request-Rate-Limit',
  period: 'X-PCO-API-Request-Rate-Period',
  count: 'X-PCO-API-Request-Rate-Count',
} as const;

/** The counter key of a request that passed (or failed) authentication. */
function counterKey(req: Parameters<RequestHandler>[0]): string {
  const auth = req.auth;
  if (!auth) return limiterKey('address', clientAddress(req));
  // A person's console tokens share one counter: issuing another does not buy more requests.
  const application =
    auth.method === 'oauth'
      ? `oauth:${auth.clientId}`
      : auth.method === 'console_token'
        ? 'console'
        : `pat:${parseBasic(req.get('authorization') ?? '')?.username}`;
  return limiterKey('user', auth.person.id, application);
}

/**
 * `authenticate` under the limits: a locked PAT client id or address gets 429 before its secret is checked;
 * then the request is counted (user and application, or address) and answered 429 when over the limit.
 * With `limiter` undefined (rate limit `off`) only the credential throttle applies.
 */
export function limitApiRequests(deps: {
  authenticate: RequestHandler;
  limiter: RateLimiterAbstract | undefined;
  limit: { points: number; seconds: number } | 'off';
  clientAuth: ClientAuthThrottle;
  /** Called for each request over the limit (metrics). */
  onExceeded?: () => void;
}): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const basic = /^Basic\s/i.test(header) ? parseBasic(header) : undefined;
    const address = clientAddress(req);
    if (/^(Basic|Bearer)\s/i.test(header)) {
      const wait = await deps.clientAuth.retryAfter(basic?.username, address);
      if (wait > 0)
        throw new TooManyRequestsError(wait, `Too many failed authentications; try again in ${wait} seconds`);
    }
    let failure: { error: unknown } | undefined;
    try {
      await deps.authenticate(req, res, () => {});
    } catch (error) {
      failure = { error };
      if (error instanceof UnauthorizedError && /^(Basic|Bearer)\s/i.test(header))
        await deps.clientAuth.failed(basic?.username, address);
    }
    if (deps.limiter && deps.limit !== 'off') {
      const limit = deps.limit;
      let state: RateLimiterRes;
      let exceeded = false;
      try {
        state = await deps.limiter.consume(counterKey(req));
      } catch (rejection) {
        if (rejection instanceof Error) throw rejection;
        state = rejection as RateLimiterRes;
        exceeded = true;
      }
      res.set(RATE_LIMIT_HEADERS.limit, String(limit.points));
      res.set(RATE_LIMIT_HEADERS.period, String(limit.seconds));
      res.set(RATE_LIMIT_HEADERS.count, String(state.consumedPoints));
      if (exceeded) {
        deps.onExceeded?.();
        const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
        throw new TooManyRequestsError(
          retryAfter,
          `Rate limit exceeded: ${state.consumedPoints} of ${limit.points} requests per ${limit.seconds} seconds`,
        );
      }
    }
    if (failure) throw failure.error;
    next();
  };
}
