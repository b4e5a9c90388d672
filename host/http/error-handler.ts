/**
 * One error handler for the JSON APIs: HostErrors render as `{errors: [...]}`; body-parser failures
 * map to the spec's codes; anything else is a 500 with the spec's detail, logged with the request id.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HostError, InternalServerError, InvalidJsonError, NotFoundError, UnauthorizedError } from '../errors.ts';
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
    res.status(hostError.status).type('application/json').json({ errors: hostError.toErrors() });
  };
}

function toHostError(error: unknown): HostError {
  if (error instanceof HostError) return error;
  const e = error as { type?: string; status?: number; statusCode?: number } | undefined;
  if (e?.type === 'entity.parse.failed') return new InvalidJsonError();
  if (e?.type === 'entity.too.large') {
    return new HostError({ status: 413, code: 'payload_too_large', title: 'Payload Too Large', detail: 'The request body is larger than this service accepts' });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new HostError({ status: 415, title: 'Unsupported Media Type', detail: 'The request body encoding is not supported' });
  }
  return new InternalServerError();
}
