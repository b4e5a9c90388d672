/** Every API request must identify its application by User-Agent; the spec answers 403 otherwise. */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors.ts';

export const requireUserAgent: RequestHandler = (req, _res, next) => {
  if (!(req.get('user-agent') ?? '').trim()) {
    throw new ForbiddenError('Every API request must carry a User-Agent header identifying the application');
  }
  next();
};
