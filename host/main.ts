/**
 * The main job: the host with its database (migrated, demo data seeded on first start) listening on its port and
 * the add-on sandbox origin on a second listener — the platform. Unless told otherwise it adds the demo
 * (host/demo): the demo pages, the sample add-on, and the template integrator beside the host.
 */
import type { RequestListener, Server } from 'node:http';
import { openIntegratorDatabase, type Database as IntegratorDatabase } from '@addon-kit/integrator-template';
import { addonSdkDir, buildSdkBundles, createSandboxApp, RUNTIME_BUNDLES } from './addons/index.ts';
import { createHost, type Host } from './app.ts';
import { resolveHostConfig, type HostConfigInput } from './config.ts';
import type { Database } from './db/database.ts';
import { DEMO_LOGINS, seedDemo } from './db/seed/demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from './db/seed/demo-password.ts';
import { integratorStartingListener } from './demo/demo-integrator.ts';
import { startDemo, type RunningDemo } from './demo/start-demo.ts';
import { listenOn, type Listener } from './http/listen.ts';
import { hostStartingListener, sandboxStartingListener } from './http/starting-response.ts';
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
  /**
   * Called once the listeners are open and answer `503` (see host/http/starting-response.ts), before the
   * demo is prepared and the apps are attached; start-up waits for it (tests hold start-up here).
   * `integratorUrl` is undefined without the demo.
   */
  onListening?: (urls: { url: string; sandboxUrl: string; integratorUrl: string | undefined }) => Promise<void>;
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
  const listen = async (port: number, whileStarting: RequestListener) => {
    const listener = await listenOn(port, requested.bindAddress, whileStarting);
    listeners.push(listener);
    return listener;
  };
  const withDemo = options.demo !== false;
  let integratorDb: IntegratorDatabase | undefined;
  let demo: RunningDemo | undefined;
  try {
    // Before listening: opening an embedded PGlite holds the event loop for seconds under load, and a listener
    // open by then could not even answer 503.
    if (withDemo) {
      const databaseUrl = options.demo ? options.demo.integratorDatabaseUrl : undefined;
      integratorDb = await openIntegratorDatabase({ databaseUrl, schema: 'integrator', dataDir: options.dataDir });
    }
    const hostListener = await listen(requested.port, hostStartingListener(options.db.kind));
    const sandboxPort = requested.sandboxPort ?? (requested.port === 0 ? 0 : requested.port + 1);
    const sandboxListener = await listen(sandboxPort, sandboxStartingListener);
    const integratorPort =
      (options.demo ? options.demo.integratorPort : undefined) ?? (requested.port === 0 ? 0 : 4100);
    const integratorListener = withDemo ? await listen(integratorPort, integratorStartingListener) : undefined;
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
    const integratorUrl = integratorListener && `http://localhost:${integratorListener.port}`;
    await options.onListening?.({ url: config.baseUrl, sandboxUrl: config.sandboxUrl!, integratorUrl });
    if (integratorListener && integratorDb) {
      demo = await startDemo({ db: options.db, config, listener: integratorListener, integratorDb, log });
    } else {
      await buildSdkBundles(addonSdkDir(config), RUNTIME_BUNDLES, log);
    }

    const host = await createHost({
      config,
      db: options.db,
      routers: demo ? [demo.router] : [],
      addonPages: demo?.pages,
    });
    hostListener.attach(host.app);
    const bundleDir = addonSdkDir(config);
    sandboxListener.attach(
      createSandboxApp({ db: options.db, hostBaseUrl: config.baseUrl, sandboxUrl: config.sandboxUrl!, bundleDir }),
    );
    await demo?.serve(host.logger);
    const running = demo;
    const db = integratorDb;
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
        await db?.close();
        await host.close();
      },
    };
  } catch (error) {
    await closeListeners();
    await demo?.close();
    await integratorDb?.close();
    throw error;
  }
}
