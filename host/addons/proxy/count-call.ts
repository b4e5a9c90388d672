/**
 * Step 0: each proxied call counted once it has ended — by side and outcome (`answered`: the upstream sent a
 * response head, whatever its status; `refused`: a step said no before anything went upstream; `failed`: the
 * upstream could not be reached or did not answer in time) — with the upstream's latency when it answered.
 */
import type { RequestHandler } from 'express';
import type { HostMetrics, ProxiedOutcome } from '../../metrics/index.ts';

/** The counting step; nothing is installed when metrics are off. */
export function countCall(metrics: HostMetrics): RequestHandler {
  if (!metrics.enabled) return (_req, _res, next) => next();
  return (req, res, next) => {
    const side = req.params.side;
    if (side === 'service' || side === 'integrator') {
      res.once('close', () => {
        const call = req.proxied;
        const outcome: ProxiedOutcome = call?.upstream ? 'answered' : res.statusCode >= 502 ? 'failed' : 'refused';
        metrics.proxiedCall(side, outcome, call?.upstream ? call.upstreamSeconds : undefined);
      });
    }
    next();
  };
}
