/** A host served over real HTTP on 127.0.0.1 with an ephemeral port, its base URL matching the port. */
import { createServer, type Server } from 'node:http';
import express, { type Express } from 'express';
import type { AddressInfo } from 'node:net';
import type { HostConfigInput } from '#host/config.ts';
import type { HostDeps } from '#host/app.ts';
import { createTestHost, type TestHost } from './host.ts';

export interface HttpTestHost extends TestHost {
  baseUrl: string;
  server: Server;
}

/** Starts the host's app with `listen(0)`; `baseUrl` (and so the issuer) is `http://127.0.0.1:<port>`. */
export async function startHttpTestHost(
  options: {
    config?: HostConfigInput;
    deps?: Partial<HostDeps>;
    /** Mount the demo pages as `start` does. */
    demo?: boolean;
    /** Routes served before the host's (test probes). */
    prepend?: (outer: Express, t: TestHost) => void;
  } = {},
): Promise<HttpTestHost> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = await createTestHost({ ...options, config: { ...options.config, baseUrl } });
  if (options.prepend) {
    const outer = express();
    options.prepend(outer, t);
    outer.use(t.host.app);
    server.on('request', outer);
  } else {
    server.on('request', t.host.app);
  }
  return {
    ...t,
    baseUrl,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}
