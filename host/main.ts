/**
 * The main job: the host with its database (migrated, demo data seeded on first start) listening
 * on its port, and — when present — the template integrator beside it.
 */
import type { Server } from 'node:http';
import { once } from 'node:events';
import { createHost, type Host } from './app.ts';
import { resolveHostConfig, type HostConfigInput } from './config.ts';
import type { Database } from './db/database.ts';
import { DEMO_LOGINS, seedDemo } from './db/seed/demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from './db/seed/demo-password.ts';
import { loadOrCreateSecrets } from './secrets.ts';

export interface StartOptions {
  db: Database;
  dataDir: string;
  config?: HostConfigInput;
  /** Password for the demo logins when the demo data is first seeded. */
  demoPassword?: string | undefined;
  log?: (line: string) => void;
}

export interface RunningHost {
  host: Host;
  server: Server;
  url: string;
  /** Demo logins: e-mail and password (undefined when this data directory did not seed them). */
  logins: { email: string; password: string | undefined }[];
  close(): Promise<void>;
}

/** Seeds on first start, then serves the host. */
export async function startHost(options: StartOptions): Promise<RunningHost> {
  const log = options.log ?? (() => {});
  const secrets = await loadOrCreateSecrets(options.dataDir);
  const config = resolveHostConfig({ ...secrets, dataDir: options.dataDir, ...options.config });
  const organizations = await options.db.query("SELECT 1 FROM organizations WHERE slug = 'demo'");
  let password = await readDemoPassword(options.dataDir);
  if (organizations.rows.length === 0) {
    password = options.demoPassword ?? generateDemoPassword();
    log('addon-kit: seeding demo data (first start)…');
    await seedDemo(options.db, { password, log });
    await rememberDemoPassword(options.dataDir, password);
  } else if (options.demoPassword && options.demoPassword !== password) {
    log('addon-kit: --demo-password applies only when the demo data is first seeded; keeping the existing passwords');
  }
  const host = await createHost({ config, db: options.db });
  const server = host.app.listen(config.port, config.bindAddress);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = config.port === 0 ? `http://${config.bindAddress}:${port}` : config.baseUrl;
  return {
    host,
    server,
    url,
    logins: DEMO_LOGINS.map((l) => ({ email: l.email, password })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
    },
  };
}
