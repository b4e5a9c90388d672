/**
 * One error handler for the JSON APIs: HostErrors render as `{errors: [...]}`; body-parser and router
 * failures (bad input: broken bodies, unsupported encodings, bad escapes, a client hanging up) map to
 * 4xx; anything else is a 500 with the spec's detail, logged with the request id.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { UnstorableTextError } from '../db/storable-text.ts';
import {
  HostError,
  InternalServerError,
  InvalidJsonError,
  MalformedUrlError,
  NotFoundError,
  NulCharacterError,
  TooManyRequestsError,
  UnauthorizedError,
  UnreadableRequestError,
} from '../errors.ts';
import type { Logger } from '../logger.ts';

/** Unknown route → 404 JSON, never HTML. */
export const notFound: RequestHandler = () => {
  throw new NotFoundError();
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const hostError = toHostError(error);
    if (hostError instanceof InternalServerError) {
      logger.error({ requestId: req.requestId, err: error }, 'unexpected error');
    }
    if (hostError instanceof UnauthorizedError) res.setHeader('WWW-Authenticate', hostError.challenge);
    if (hostError instanceof TooManyRequestsError) res.setHeader('Retry-After', String(hostError.retryAfterSeconds));
    res.status(hostError.status).type('application/json').json({ errors: hostError.toErrors() });
  };
}

/** The HostError an error stands for: the client's mistake when it was one, a 500 otherwise. */
export function toHostError(error: unknown): HostError<string> {
  if (error instanceof HostError) return error as HostError<string>;
  if (error instanceof UnstorableTextError) return new NulCharacterError();
  const e = error as { type?: string; status?: unknown; statusCode?: unknown } | undefined;
  if (e?.type === 'entity.parse.failed') return new InvalidJsonError();
  if (e?.type === 'entity.too.large') {
    return new HostError({
      status: 413,
      code: 'payload_too_large',
      title: 'Payload Too Large',
      detail: 'The request body is larger than this service accepts',
    });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new UnreadableRequestError(415, 'The request body encoding is not supported');
  }
  if (e?.type === 'request.aborted')
    return new UnreadableRequestError(400, 'The client closed the request before its body arrived');
  // The router's URIError (a path parameter that does not decode) carries status 400.
  if (error instanceof URIError) return new MalformedUrlError();
  const status = Number(e?.status ?? e?.statusCode);
  // body-parser and friends mark what the client got wrong with a 4xx status (e.g. a gzip body that does not inflate).
  if (Number.isInteger(status) && status >= 400 && status < 500) return new UnreadableRequestError(status);
  return new InternalServerError();
}
