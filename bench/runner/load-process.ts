/**
 * The load generator, run as its own Node.js process (so its CPU is not the server's event loop): receives a
 * LoadSpec over IPC, runs autocannon for the round, sends the LoadResult back and exits.
 */
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from './load.ts';

/** Refresh mode: every request spends a refresh token never used before; each response's new one joins the queue. */
function refreshRequests(spec: NonNullable<LoadSpec['refresh']>): autocannon.Request[] {
  const queue = [...spec.tokens];
  return [
    {
      setupRequest(request) {
        // An empty queue means chains broke (non-2xx answers); an unknown token then counts as one more non-2xx.
        const token = queue.shift() ?? 'exhausted';
        return { ...request, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(token)}` };
      },
      onResponse(status, body) {
        if (status !== 200) return;
        const next = (JSON.parse(body) as { refresh_token?: string }).refresh_token;
        if (next) queue.push(next);
      },
    },
  ];
}

process.once('message', (spec: LoadSpec) => {
  const requests = spec.refresh ? refreshRequests(spec.refresh) : undefined;
  autocannon(
    {
      url: spec.url,
      method: spec.method as autocannon.Request['method'],
      headers: spec.headers,
      ...(spec.body !== undefined ? { body: spec.body } : {}),
      ...(requests ? { requests } : {}),
      connections: spec.connections,
      duration: spec.seconds,
      timeout: 30,
    },
    (error, result) => {
      if (error) {
        process.send!({ error: (error as Error).message }, () => process.exit(1));
        return;
      }
      const seconds = result.duration;
      const answer: LoadResult = {
        ok: result['2xx'],
        rps: result['2xx'] / seconds,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        seconds,
      };
      process.send!(answer, () => process.exit(0));
    },
  );
});
