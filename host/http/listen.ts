/** Opens a listener before its app exists, so port 0 works: the real port is known when the URLs are built. */
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long `close()` lets requests in flight finish before it cuts their connections. */
export const CLOSE_GRACE_MS = 30_000;
/** How often `close()` closes connections that went idle since it began (keep-alive ones between requests). */
const IDLE_SWEEP_MS = 50;
/**
 * How long an idle keep-alive connection stays open: longer than a load balancer keeps an idle connection to a host
 * in its pool (HAProxy purges its idle connections within seconds), so the host never closes one just as the balancer
 * sends a request on it — a race that fails that request (Node's default is 5 s).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** A listening server answering with its start-up listener until `attach` hands it the app. */
export interface Listener {
  server: Server;
  port: number;
  /** From now on every request goes to `app`. */
  attach(app: RequestListener): void;
  /**
   * From now on every response says `Connection: close`, so no keep-alive connection outlives its current request
   * (a balancer then opens its next connection to another host).
   */
  drain(): void;
  /**
   * Stops taking connections, lets the requests in flight finish (closing each connection once its response is
   * sent, and every idle keep-alive connection at once), and resolves when none is left; after `graceMs` the
   * remaining connections are cut.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Listens on `port` (0 picks a free one) at `bindAddress`; until `attach`, `whileStarting` answers every request
 * (it must answer at once: a request that waits for the app could hang for the whole start-up).
 */
export async function listenOn(port: number, bindAddress: string, whileStarting: RequestListener): Promise<Listener> {
  let handler = whileStarting;
  let draining = false;
  // Responses not yet finished: those whose head is still unsent learn of a drain too.
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    else {
      open.add(res);
      res.once('close', () => open.delete(res));
    }
    handler(req, res);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Above the keep-alive timeout, so a request arriving on a connection about to time out is not cut by it.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  const drain = () => {
    draining = true;
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    open.clear();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    attach(app) {
      handler = app;
    },
    drain,
    close(graceMs = CLOSE_GRACE_MS) {
      drain();
      closing ??= new Promise<void>((resolve) => {
        // server.close() closes the connections idle right now; those that finish a response later either close
        // themselves (Connection: close) or, when their response began before the drain, are swept here.
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
      });
      return closing;
    },
  };
}
