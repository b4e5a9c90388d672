/**
 * The main job: the host with its database (migrated, demo data seeded on first start) listening on its port and
 * the add-on sandbox origin on a second listener — the platform. Unless told otherwise it adds the demo
 * (host/demo): the demo pages, the sample add-on, and the template integrator beside the host.
 */
import type { Server } from 'node:http';
import { addonSdkDir, buildSdkBundles, createSandboxApp, RUNTIME_BUNDLES } from './addons/index.ts';
import { createHost, type Host } from './app.ts';
import { resolveHostConfig, type HostConfigInput } from './config.ts';
import type { Database } from './db/database.ts';
import { DEMO_LOGINS, seedDemo } from './db/seed/demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from './db/seed/demo-password.ts';
import { startDemo, type RunningDemo } from './demo/start-demo.ts';
import { listenOn, type Listener } from './http/listen.ts';
import { loadOrCreateSecrets } from './secrets.ts';

export interface StartOptions {
  db: Database;
  dataDir: string;
  config?: HostConfigInput;
  /** Password for the demo logins when the demo data is first seeded. */
  demoPassword?: string | undefined;
  /**
   * The demo (default on): the template integrator's port (default 4100, or 0 when the host's port is 0) and
   * PostgreSQL URL (schema `integrator`; default PGlite in `<dataDir>/integrator`). `false`: the platform only.
   */
  demo?: false | { integratorPort?: number | undefined; integratorDatabaseUrl?: string | undefined };
  log?: (line: string) => void;
}

export interface RunningHost {
  host: Host;
  server: Server;
  url: string;
  /** The add-on sandbox origin. */
  sandboxUrl: string;
  /** The demo beside the host, when it runs. */
  demo: RunningDemo | undefined;
  /** Demo logins: e-mail and password (undefined when this data directory did not seed them). */
  logins: { email: string; password: string | undefined }[];
  close(): Promise<void>;
}

/** Seeds on first start, then serves the host and the sandbox origin (and the demo unless `demo: false`). */
export async function startHost(options: StartOptions): Promise<RunningHost> {
  const log = options.log ?? (() => {});
  const secrets = await loadOrCreateSecrets(options.dataDir);
  const requested = resolveHostConfig({ ...secrets, dataDir: options.dataDir, ...options.config });
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

  // Listen first: with port 0 the URLs (issuer, sandbox origin, integrator URLs in the add-on config) need the real ports.
  const listeners: Listener[] = [];
  const closeListeners = () => Promise.all(listeners.map((l) => l.close()));
  const listen = async (port: number) => {
    const listener = await listenOn(port, requested.bindAddress);
    listeners.push(listener);
    return listener;
  };
  let demo: RunningDemo | undefined;
  try {
    const hostListener = await listen(requested.port);
    const sandboxListener = await listen(requested.sandboxPort ?? (requested.port === 0 ? 0 : requested.port + 1));
    const integratorListener = options.demo === false ? undefined : await listen(options.demo?.integratorPort ?? (requested.port === 0 ? 0 : 4100));
    const explicitBaseUrl = options.config?.baseUrl ?? (process.env.ADDON_KIT_BASE_URL || undefined);
    const config = resolveHostConfig({
      ...secrets,
      dataDir: options.dataDir,
      ...options.config,
      port: hostListener.port,
      baseUrl: explicitBaseUrl ?? `http://localhost:${hostListener.port}`,
      // 127.0.0.1, not localhost: cookies ignore ports, so another host name keeps the host session cookie
      // away from the sandbox (the add-on origin) in development.
      sandboxUrl: requested.sandboxUrl ?? `http://127.0.0.1:${sandboxListener.port}`,
      addonSdkDir: addonSdkDir(requested),
    });
    if (integratorListener) {
      demo = await startDemo({ db: options.db, config, listener: integratorListener, databaseUrl: options.demo ? options.demo.integratorDatabaseUrl : undefined, log });
    } else {
      await buildSdkBundles(addonSdkDir(config), RUNTIME_BUNDLES, log);
    }

    const host = await createHost({ config, db: options.db, routers: demo ? [demo.router] : [] });
    hostListener.server.on('request', host.app);
    sandboxListener.server.on('request', createSandboxApp({ db: options.db, hostBaseUrl: config.baseUrl, sandboxUrl: config.sandboxUrl!, bundleDir: addonSdkDir(config) }));
    await demo?.serve(host.logger);
    const running = demo;
    return {
      host,
      server: hostListener.server,
      url: config.baseUrl,
      sandboxUrl: config.sandboxUrl!,
      demo,
      logins: DEMO_LOGINS.map((l) => ({ email: l.email, password })),
      async close() {
        await closeListeners();
        await running?.close();
        await host.close();
      },
    };
  } catch (error) {
    await closeListeners();
    await demo?.close();
    throw error;
  }
}
