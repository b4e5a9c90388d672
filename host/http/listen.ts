/** Opens a listener before its app exists, so port 0 works: the real port is known when the URLs are built. */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server answering with its start-up listener until `attach` hands it the app. */
export interface Listener {
  server: Server;
  port: number;
  /** From now on every request goes to `app`. */
  attach(app: RequestListener): void;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0 picks a free one) at `bindAddress`; until `attach`, `whileStarting` answers every request
 * (it must answer at once: a request that waits for the app could hang for the whole start-up).
 */
export async function listenOn(port: number, bindAddress: string, whileStarting: RequestListener): Promise<Listener> {
  let handler = whileStarting;
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    attach(app) {
      handler = app;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
