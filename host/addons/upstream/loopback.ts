/**
 * The host's own app on a loopback port, for the service side of the fetch proxy: a proxied call goes
 * through the very same middleware (User-Agent, Bearer check by the OAuth provider, scopes, the
 * person's current roles) as any API client's call, and both bodies stream. Listening starts on first
 * use, on 127.0.0.1 with an ephemeral port, whatever the public base URL is.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The host app on a loopback port. */
export interface Loopback {
  /** `http://127.0.0.1:<port>`. */
  origin(): Promise<string>;
  close(): Promise<void>;
}

/** Serves `app` on 127.0.0.1 from the first call of `origin()`. */
export function createLoopback(app: RequestListener): Loopback {
  let server: Server | undefined;
  let listening: Promise<string> | undefined;
  return {
    origin() {
      listening ??= new Promise((resolve, reject) => {
        server = createServer(app);
        server.on('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
      });
      return listening;
    },
    async close() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
