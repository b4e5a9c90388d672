/** Observes every request's duration by method, route template and status, once its response is sent. */
import type { RequestHandler } from 'express';
import type { HostMetrics } from './host-metrics.ts';
import { routeTemplate } from './route-template.ts';

/** The middleware; nothing is installed when metrics are off. */
export function measureRequests(metrics: HostMetrics): RequestHandler {
  if (!metrics.enabled) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.request(req.method, routeTemplate(req, res.statusCode), res.statusCode, seconds);
    });
    next();
  };
}
