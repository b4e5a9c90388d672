/** Opens a listener before its app exists, so port 0 works: the real port is known when the URLs are built. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server without a request handler yet (attach one with `server.on('request', app)`). */
export interface Listener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0 picks a free one) at `bindAddress`. */
export async function listenOn(port: number, bindAddress: string): Promise<Listener> {
  const server = createServer();
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
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
